import { Flags } from '@oclif/core';
import { cliActor } from '../../../src/cli/actor.js';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { checkRequest, withFlagNames } from '../../../src/cli/engine-input.js';
import { renderShadow } from '../../../src/cli/engine-views.js';
import { shadowModeBody } from '../../../src/engine/inputs.js';
import { changeShadowMode, type ShadowModeChange } from '../../../src/engine/ops/shadow-mode.js';
import type { ShadowMode } from '../../../src/engine/store/shadow.js';

export default class EngineShadowOff extends TradesealCommand {
  static override summary = 'Turn shadow mode off: violations are refused again';
  static override examples = ['<%= config.bin %> engine shadow off', '<%= config.bin %> engine shadow off --reason "dry-run reviewed, policy 1.1.0 live"'];
  static override flags = {
    reason: Flags.string({ summary: 'Why (kept with the state)' }),
    ...engineRemoteFlags,
  };

  async run(): Promise<ShadowMode> {
    const { flags } = await this.parse(EngineShadowOff);
    const change = checkRequest<ShadowModeChange>(shadowModeBody, { enabled: false, ...(flags.reason === undefined ? {} : { reason: flags.reason }) }, 'body');
    const remote = await engineRemoteOf(flags, this.settings);
    const state = remote
      ? await askEngine<ShadowMode>(remote, 'POST', '/engine/admin/shadow-mode', { body: change })
      : await this.withStore((store) => withFlagNames({}, () => changeShadowMode(store.sql, change, cliActor())));
    this.log(renderShadow(state));
    return state;
  }
}
