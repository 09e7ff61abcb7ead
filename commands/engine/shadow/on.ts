import { Flags } from '@oclif/core';
import { cliActor } from '../../../src/cli/actor.js';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { assertValid, checkText } from '../../../src/cli/engine-input.js';
import { renderShadow } from '../../../src/cli/engine-views.js';
import { setShadowMode, type ShadowMode } from '../../../src/engine/store/shadow.js';
import type { FieldError } from '../../../src/errors.js';

export default class EngineShadowOn extends TradesealCommand {
  static override summary = 'Turn shadow mode on: violations are recorded, orders pass';
  static override description = 'The usual dry-run of a policy roll-out: authorize answers 200 with shadow_blocked: true and seals a SHADOW_HALTED trace instead of refusing (403). Every engine instance follows within ENGINE_STATE_REFRESH_MS.';
  static override examples = ['<%= config.bin %> engine shadow on --reason "policy 1.1.0 dry-run, week 12"'];
  static override flags = {
    reason: Flags.string({ summary: 'Why (kept with the state)', required: true }),
  };

  async run(): Promise<ShadowMode> {
    const { flags } = await this.parse(EngineShadowOn);
    const errors: FieldError[] = [];
    const reason = checkText(flags.reason, '--reason', 1000, errors);
    assertValid(errors);
    const state = await this.withStore((store) => setShadowMode(store.sql, true, reason, cliActor()));
    this.log(renderShadow(state));
    return state;
  }
}
