import { Flags } from '@oclif/core';
import { cliActor } from '../../src/cli/actor.js';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { manualBroadcast } from '../../src/cli/engine-input.js';
import { renderBroadcast } from '../../src/cli/engine-views.js';
import { publishRegime, type RegimeBroadcast } from '../../src/engine/store/regime.js';
import { REGIMES } from '../../src/engine/vocabulary.js';

export default class RegimePublish extends TradesealCommand {
  static override summary = 'Publish a manual regime broadcast (an operator\'s override of the pipeline)';
  static override description = 'The broadcast is in force at once on every engine instance (within ENGINE_STATE_REFRESH_MS) until the next one, manual or from the pipeline. It states certainty: probability 1 on the named regime. Heartbeats must then carry its regime_id and hash (mta_ref).';
  static override examples = [
    '<%= config.bin %> regime publish --regime risk_off --risk-score 0.9 --reason "exchange outage, flatten only"',
    '<%= config.bin %> regime publish --regime expansion --risk-score 0.2 --reason "pipeline down, restoring Friday\'s state" --date 2026-03-06 --model-version hmm-2026.03 --json',
  ];
  static override flags = {
    regime: Flags.option({ summary: 'The regime to enforce', options: REGIMES, required: true })(),
    'risk-score': Flags.string({ summary: 'Risk score, a number from 0 to 1', required: true, helpValue: '0..1' }),
    reason: Flags.string({ summary: 'Why the pipeline is overridden (kept with the broadcast)', required: true }),
    date: Flags.string({ summary: 'The day the broadcast is for (default: today, UTC)', helpValue: 'YYYY-MM-DD' }),
    'model-version': Flags.string({ summary: 'The model version to state', default: 'manual' }),
  };

  async run(): Promise<RegimeBroadcast> {
    const { flags } = await this.parse(RegimePublish);
    const input = manualBroadcast(flags, new Date().toISOString().slice(0, 10), cliActor());
    const broadcast = await this.withStore((store) => publishRegime(store.sql, input));
    this.log(renderBroadcast(broadcast));
    this.log(`\npublished: heartbeats must now carry regime_id ${broadcast.regime_id} and mta_ref ${broadcast.hash}`);
    return broadcast;
  }
}
