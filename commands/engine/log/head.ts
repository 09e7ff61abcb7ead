import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { checkRequest, numberOf } from '../../../src/cli/engine-input.js';
import { localHead, remoteHead } from '../../../src/cli/log-source.js';
import { renderHead } from '../../../src/cli/log-view.js';
import type { SignedTreeHead } from '../../../src/core/log/tree-head.js';
import { headQuery } from '../../../src/core/log/schemas.js';

export default class EngineLogHead extends TradesealCommand {
  static override summary = 'Show a signed tree head of the transparency log: the newest, or that of a past size';
  static override description =
    'What GET /engine/log/head answers: tree_size, root_hash, timestamp (Unix ms), the base64 Ed25519 signature over the RFC 6962 §3.5 TreeHeadSignature and the key_id of the signing key. Reads the local store, or a remote engine with --url and --token.';
  static override examples = [
    '<%= config.bin %> engine log head',
    '<%= config.bin %> engine log head --tree-size 1000 --json',
    '<%= config.bin %> engine log head --url https://engine.example:8080 --token "$AUDITOR_TOKEN"',
  ];
  static override flags = {
    'tree-size': Flags.string({ summary: 'A past size of the log (default: the newest head)', helpValue: 'N' }),
    ...engineRemoteFlags,
  };

  async run(): Promise<SignedTreeHead> {
    const { flags } = await this.parse(EngineLogHead);
    const query = checkRequest<{ tree_size?: number }>(
      headQuery,
      flags['tree-size'] === undefined ? {} : { tree_size: numberOf(flags['tree-size']) },
      'querystring',
    );
    const remote = await engineRemoteOf(flags, this.settings);
    const head = remote ? await remoteHead(remote, query.tree_size) : await this.withStore((store) => localHead(store, this.settings, query.tree_size));
    this.log(renderHead(head));
    return head;
  }
}
