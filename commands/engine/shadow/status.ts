import { TradesealCommand } from '../../../src/cli/base-command.js';
import { renderShadow } from '../../../src/cli/engine-views.js';
import { readShadowMode, type ShadowMode } from '../../../src/engine/store/shadow.js';

export default class EngineShadowStatus extends TradesealCommand {
  static override summary = 'Show whether shadow mode is on, since when, by whom and why';
  static override examples = ['<%= config.bin %> engine shadow status', '<%= config.bin %> engine shadow status --json'];

  async run(): Promise<ShadowMode> {
    await this.parse(EngineShadowStatus);
    const state = await this.withStore((store) => readShadowMode(store.sql));
    this.log(renderShadow(state));
    return state;
  }
}
