import { Flags } from '@oclif/core';
import { writeFileAtomic } from '../../../src/core/atomic-file.js';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { checkRequest, numberOf } from '../../../src/cli/engine-input.js';
import { renderHead } from '../../../src/cli/log-view.js';
import { remoteFlags, remoteOf } from '../../../src/cli/signals-client.js';
import { localTrackSource, remoteTrackSource } from '../../../src/cli/track-source.js';
import type { SignedTreeHead } from '../../../src/core/log/tree-head.js';
import { TradesealError } from '../../../src/core/errors.js';
import { checkOutputFile, fileError } from '../../../src/core/file-errors.js';
import { trackHeadQuery } from '../../../src/signals/inputs.js';
import { stat } from 'node:fs/promises';

export default class SignalsLogHead extends TradesealCommand {
  static override summary = "Show a signed tree head of the signal service's track log, and save it to a file to verify days against later";
  static override description =
    'What GET /v1/log/head answers: tree_size, root_hash, timestamp (Unix ms), the base64 Ed25519 signature over the RFC 6962 §3.5 TreeHeadSignature and the key_id of the log key. With --out, the head is written to a new file as JSON: keep it, and `tradeseal signals verify --head FILE` proves a day against it and that the log only grew since. An existing file is not replaced: `signals verify --update-head` advances a saved head once the log is proven to have only grown. Reads the local store, or a remote service with --url (no key needed).';
  static override examples = [
    '<%= config.bin %> signals log head',
    '<%= config.bin %> signals log head --url https://signals.example.com --out heads/2026-11-27.json',
  ];
  static override flags = {
    'tree-size': Flags.string({ summary: 'The size of a head signed earlier (default: the newest)', helpValue: 'N' }),
    out: Flags.string({ summary: 'Write the head to this new file (JSON), to verify against later', helpValue: 'FILE' }),
    ...remoteFlags,
  };

  async run(): Promise<SignedTreeHead> {
    const { flags } = await this.parse(SignalsLogHead);
    const query = checkRequest<{ tree_size?: number }>(
      trackHeadQuery,
      flags['tree-size'] === undefined ? {} : { tree_size: numberOf(flags['tree-size']) },
      'querystring',
      { tree_size: '--tree-size' },
    );
    if (flags.out !== undefined) {
      await checkOutputFile(flags.out, '--out');
      if (
        await stat(flags.out).then(
          () => true,
          () => false,
        )
      ) {
        throw new TradesealError('validation_failed', `--out: ${flags.out} exists; a saved head is evidence and is not replaced`, {
          errors: [{ field: '--out', message: `${flags.out} exists` }],
          hint: 'name a new file, or advance the saved head with `tradeseal signals verify --date D --head FILE --update-head`, which first proves the log only grew',
        });
      }
    }
    const remote = await remoteOf(flags, this.settings);
    const head = remote
      ? await remoteTrackSource(remote).head(query.tree_size)
      : await this.withStore((store) => localTrackSource(store.sql).head(query.tree_size));
    if (flags.out !== undefined) {
      const out = flags.out;
      await writeFileAtomic(out, `${JSON.stringify(head, null, 2)}\n`).catch((err: unknown) => {
        throw fileError(err, { field: '--out', file: out, action: 'write' });
      });
    }
    this.log(renderHead(head) + (flags.out !== undefined ? `\nsaved to ${flags.out}` : ''));
    return head;
  }
}
