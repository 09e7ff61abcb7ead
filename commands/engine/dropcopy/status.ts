import { TradesealCommand } from '../../../src/cli/base-command.js';
import { renderDropCopyStatus } from '../../../src/cli/dropcopy-view.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { configuredSession, readDropCopyStatus, type DropCopyStatus } from '../../../src/engine/dropcopy/status.js';

export default class EngineDropCopyStatus extends TradesealCommand {
  static override summary = 'Show the FIX drop-copy session: its state, sequence numbers, last messages, fills by outcome and refused messages';
  static override description =
    'On the local store (the state row the server running the session keeps) or a remote engine (GET /engine/admin/dropcopy, an owner or auditor token). ' +
    'Each instant is shown with its age. With no session configured (FIX_DROPCOPY_ROLE unset) and none ever run, it says so and exits 0.';
  static override examples = ['<%= config.bin %> engine dropcopy status', '<%= config.bin %> engine dropcopy status --profile prod --json'];

  static override flags = { ...engineRemoteFlags };

  async run(): Promise<DropCopyStatus> {
    const { flags } = await this.parse(EngineDropCopyStatus);
    const remote = await engineRemoteOf(flags, this.settings);
    const status = remote
      ? await askEngine<DropCopyStatus>(remote, 'GET', '/engine/admin/dropcopy')
      : await this.withStore((store) => readDropCopyStatus(store.sql, configuredSession(this.settings), new Date()));
    this.log(renderDropCopyStatus(status));
    return status;
  }
}
