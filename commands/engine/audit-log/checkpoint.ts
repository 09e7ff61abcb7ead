import { anchorNow, remoteCheckpoint } from '../../../src/cli/audit-checkpoints.js';
import { renderCheckpoint } from '../../../src/cli/audit-view.js';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import type { SignedAuditCheckpoint } from '../../../src/engine/audit/checkpoint.js';
import { notFound } from '../../../src/core/errors.js';

export default class EngineAuditLogCheckpoint extends TradesealCommand {
  static override summary =
    "Sign a checkpoint of the audit chain's head now (when it grew) and print the newest one: keep it to prove later that no entry up to it was cut";
  static override description =
    "A checkpoint names the chain's newest entry (its position, id and entry_hash), signed with the transparency log's key; the server signs one every second when the chain grew. On the local store this signs one now if the chain grew since the newest; against a remote engine (--url and an owner or auditor token, or a profile) it prints the newest the engine signed. Keep the --json output out of the engine's reach: `tradeseal engine audit-log verify --checkpoint FILE` proves later that the chain still holds every entry up to it.";
  static override examples = [
    '<%= config.bin %> engine audit-log checkpoint --json > audit-checkpoint-$(date +%F).json',
    '<%= config.bin %> engine audit-log checkpoint --profile prod --json',
  ];
  static override flags = { ...engineRemoteFlags };

  async run(): Promise<SignedAuditCheckpoint> {
    const { flags } = await this.parse(EngineAuditLogCheckpoint);
    const remote = await engineRemoteOf(flags, this.settings);
    const checkpoint = remote ? await remoteCheckpoint(remote) : await this.withStore((store) => anchorNow(store.sql, this.settings, Date.now()));
    if (!checkpoint) {
      throw notFound(
        remote
          ? 'the engine has signed no checkpoint yet: its audit log is empty, or its first entry is less than a second old'
          : 'the audit log is empty: there is no head to sign a checkpoint of',
      );
    }
    this.log(renderCheckpoint(checkpoint));
    return checkpoint;
  }
}
