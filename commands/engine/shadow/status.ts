import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { renderShadow } from '../../../src/cli/engine-views.js';
import { readShadowMode, type ShadowMode } from '../../../src/engine/store/shadow.js';

export default class EngineShadowStatus extends TradesealCommand {
  static override summary = 'Show whether shadow mode is on, since when, by whom and why';
  static override examples = ['<%= config.bin %> engine shadow status', '<%= config.bin %> engine shadow status --json'];

  static override flags = { ...engineRemoteFlags };

  async run(): Promise<ShadowMode> {
    const { flags } = await this.parse(EngineShadowStatus);
    const remote = await engineRemoteOf(flags, this.settings);
    const state = remote ? await askEngine<ShadowMode>(remote, 'GET', '/engine/admin/shadow-mode') : await this.withStore((store) => readShadowMode(store.sql));
    this.log(renderShadow(state));
    return state;
  }
}
