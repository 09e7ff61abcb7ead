import { Flags } from '@oclif/core';
import { cliActor } from '../../../src/cli/actor.js';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { assertValid, checkText } from '../../../src/cli/engine-input.js';
import { renderShadow } from '../../../src/cli/engine-views.js';
import { setShadowMode, type ShadowMode } from '../../../src/engine/store/shadow.js';
import type { FieldError } from '../../../src/errors.js';

export default class EngineShadowOff extends TradesealCommand {
  static override summary = 'Turn shadow mode off: violations are refused again';
  static override examples = ['<%= config.bin %> engine shadow off', '<%= config.bin %> engine shadow off --reason "dry-run reviewed, policy 1.1.0 live"'];
  static override flags = {
    reason: Flags.string({ summary: 'Why (kept with the state)' }),
  };

  async run(): Promise<ShadowMode> {
    const { flags } = await this.parse(EngineShadowOff);
    const errors: FieldError[] = [];
    const reason = flags.reason === undefined ? null : checkText(flags.reason, '--reason', 1000, errors);
    assertValid(errors);
    const state = await this.withStore((store) => setShadowMode(store.sql, false, reason, cliActor()));
    this.log(renderShadow(state));
    return state;
  }
}
