import { Flags } from '@oclif/core';
import { cliActor } from '../../../src/cli/actor.js';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { checkRequest, withFlagNames } from '../../../src/cli/engine-input.js';
import { renderShadow } from '../../../src/cli/engine-views.js';
import { shadowModeBody } from '../../../src/engine/inputs.js';
import { changeShadowMode, type ShadowModeChange } from '../../../src/engine/ops/shadow-mode.js';
import type { ShadowMode } from '../../../src/engine/store/shadow.js';

export default class EngineShadowOn extends TradesealCommand {
  static override summary = 'Turn shadow mode on: violations are recorded, orders pass';
  static override description =
    'The usual dry-run of a policy roll-out: authorize answers 200 with shadow_blocked: true and seals a SHADOW_HALTED trace instead of refusing (403). Every engine instance follows within ENGINE_STATE_REFRESH_MS. A reason is required, as over HTTP.';
  static override examples = ['<%= config.bin %> engine shadow on --reason "policy 1.1.0 dry-run, week 12"'];
  static override flags = {
    // Not `required` for oclif: the engine operation refuses a missing reason, with the API's message.
    reason: Flags.string({ summary: 'Why (required; kept with the state)' }),
    ...engineRemoteFlags,
  };

  async run(): Promise<ShadowMode> {
    const { flags } = await this.parse(EngineShadowOn);
    const change = checkRequest<ShadowModeChange>(shadowModeBody, { enabled: true, ...(flags.reason === undefined ? {} : { reason: flags.reason }) }, 'body');
    const remote = await engineRemoteOf(flags, this.settings);
    const state = remote
      ? await askEngine<ShadowMode>(remote, 'POST', '/engine/admin/shadow-mode', { body: change })
      : await this.withStore((store) => withFlagNames({}, () => changeShadowMode(store.sql, change, cliActor())));
    this.log(renderShadow(state));
    return state;
  }
}
