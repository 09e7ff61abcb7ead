import { Flags } from '@oclif/core';
import { cliActor } from '../../src/cli/actor.js';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../src/cli/engine-client.js';
import { checkRequest, numberOf } from '../../src/cli/engine-input.js';
import { renderBroadcast } from '../../src/cli/engine-views.js';
import { manualBroadcastBody } from '../../src/engine/inputs.js';
import { MANUAL_MODEL_VERSION, publishOperatorBroadcast, type ManualBroadcastBody } from '../../src/engine/ops/regime.js';
import type { RegimeBroadcast } from '../../src/store/regime-broadcasts.js';
import { REGIMES } from '../../src/core/vocabulary.js';

export default class RegimePublish extends TradesealCommand {
  static override summary = "Publish a manual regime broadcast (an operator's override of the pipeline)";
  static override description =
    "The broadcast is in force at once on every engine instance (within ENGINE_STATE_REFRESH_MS) and holds until an operator releases it (`tradeseal regime release`) or publishes another: pipeline runs go on publishing their history but do not replace it. It states certainty: probability 1 on the named regime. Heartbeats must then carry its regime_id and hash (mta_ref). Its --date is its data day: the policy's regime_max_age_ms counts from the end of it. Checked with the same schema as POST /engine/admin/regime.";
  static override examples = [
    '<%= config.bin %> regime publish --regime risk_off --risk-score 0.9 --reason "exchange outage, flatten only"',
    '<%= config.bin %> regime publish --regime expansion --risk-score 0.2 --reason "pipeline down, restoring Friday\'s state" --date 2026-03-06 --model-version hmm-2026.03 --json',
  ];
  static override flags = {
    regime: Flags.string({ summary: `The regime to enforce (${REGIMES.join(', ')})`, required: true }),
    'risk-score': Flags.string({ summary: 'Risk score, a number from 0 to 1', required: true, helpValue: '0..1' }),
    reason: Flags.string({ summary: 'Why the pipeline is overridden (kept with the broadcast)', required: true }),
    date: Flags.string({ summary: 'The data day the broadcast is for (default: today, UTC)', helpValue: 'YYYY-MM-DD' }),
    'model-version': Flags.string({ summary: `The model version to state (default: ${MANUAL_MODEL_VERSION})` }),
    ...engineRemoteFlags,
  };

  async run(): Promise<RegimeBroadcast> {
    const { flags } = await this.parse(RegimePublish);
    const body = checkRequest<ManualBroadcastBody>(
      manualBroadcastBody,
      {
        regime: flags.regime,
        risk_score: numberOf(flags['risk-score']),
        reason: flags.reason,
        ...(flags.date === undefined ? {} : { date: flags.date }),
        ...(flags['model-version'] === undefined ? {} : { model_version: flags['model-version'] }),
      },
      'body',
    );
    const remote = await engineRemoteOf(flags, this.settings);
    const broadcast = remote
      ? await askEngine<RegimeBroadcast>(remote, 'POST', '/engine/admin/regime', { body })
      : await this.withStore((store) => publishOperatorBroadcast(store.sql, body, cliActor(), Date.now()));
    this.log(renderBroadcast(broadcast));
    this.log(
      `\npublished: in force until \`tradeseal regime release\` or another broadcast; heartbeats must now carry regime_id ${broadcast.regime_id} and mta_ref ${broadcast.hash}`,
    );
    return broadcast;
  }
}
