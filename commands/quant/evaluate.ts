import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { checkRequest, withFlagNames } from '../../src/cli/engine-input.js';
import { renderEvaluation } from '../../src/cli/evaluation-view.js';
import { recordLine } from '../../src/cli/quant-view.js';
import { reportFlags, reportStyle } from '../../src/cli/table-flags.js';
import { wrapText } from '../../src/cli/wrap.js';
import { calendarDateFlag } from '../../src/cli/instant.js';
import { SETTINGS } from '../../src/core/config.js';
import { validationError } from '../../src/core/errors.js';
import { dateRangeQuery, performanceQuery, RECORD_BASES, type RecordBasis } from '../../src/signals/inputs.js';
import { evaluatePublished, evaluationWindow } from '../../src/signals/ops/evaluation.js';
import type { RecordCounts } from '../../src/signals/ops/track-record.js';
import type { Evaluation } from '../../pipeline/reports/evaluate.js';
import { EVALUATION_WINDOWS } from '../../pipeline/reports/evaluation-windows.js';

const FLAG_NAMES = { start: '--from', end: '--to' };

export default class QuantEvaluate extends TradesealCommand {
  static override summary = 'Judge the published regimes: the regime strategy against buy-and-hold and the 200-day moving-average rule';
  static override description = `The regime strategy (the weight of each published regime, expansion 1, recovery 0.75, tightening 0.25, risk_off 0, taken as SPY exposure at the first open after its publication at 06:30 New York on the next trading day) against buy-and-hold and the 200-day moving-average rule (in from a day's open when the close of the day before is above the mean of the 200 closes ending on it, else out), all three marked to market at the closes and net of the same cost per unit of exposure change (SIGNAL_COST_BPS, or --cost-bps), on exactly the same days: a day is evaluated when a regime published before its open is held, it has its open and close, and 200 published closes before it. For each: Sharpe (risk-free 0), CAGR, max drawdown and Calmar with empyrical's conventions, average exposure, turnover per year (the sum of |exposure change| between consecutive days, per 252 days) and position changes per year; over the full window (${EVALUATION_WINDOWS.full.from} to ${EVALUATION_WINDOWS.full.to} unless --from/--to say otherwise), its in-sample (${EVALUATION_WINDOWS.in_sample.from} to ${EVALUATION_WINDOWS.in_sample.to}) and out-of-sample (${EVALUATION_WINDOWS.out_of_sample.from} to ${EVALUATION_WINDOWS.out_of_sample.to}) parts, and each calendar year, with the share of days in each regime, then how sure the leads are (the stationary bootstrap's 90 % and 95 % intervals of the regime strategy's Sharpe and Calmar leads over each baseline, with P(lead ≤ 0), the share of resamples in which it is not ahead; and its deflated Sharpe ratio against every variant the research tried, data/research/variants.json), then whether the regime strategy is ahead of the 200-day rule on Sharpe and Calmar over the full window and not behind it out of sample (information). The same tables as npm run bench:signal. With --record live, only the days resting on regimes logged live in the track log are evaluated (every strategy on the same days), and record says how many days each basis holds. Exit 3 when nothing is published, or, with --record live, when no evaluable day rests on live regimes.`;
  static override examples = [
    '<%= config.bin %> quant evaluate',
    '<%= config.bin %> quant evaluate --from 2017-01-01 --to 2025-12-31',
    '<%= config.bin %> quant evaluate --json',
    '<%= config.bin %> quant evaluate --cost-bps 0',
    '<%= config.bin %> quant evaluate --record live',
  ];
  static override flags = {
    from: calendarDateFlag({ summary: `First day of the full window, YYYY-MM-DD (inclusive; default ${EVALUATION_WINDOWS.full.from})` }),
    to: calendarDateFlag({ summary: `Last day of the full window, YYYY-MM-DD (inclusive; default ${EVALUATION_WINDOWS.full.to})` }),
    'cost-bps': Flags.string({ summary: 'Cost per unit of exposure change, basis points 0 to 10000 (default SIGNAL_COST_BPS, 5)', helpValue: 'BPS' }),
    record: Flags.string({
      summary: 'all: every published day; live: only the days resting on regimes logged live in the track log',
      options: [...RECORD_BASES],
      default: 'all',
    }),
    ...reportFlags,
  };

  async run(): Promise<Evaluation & { record: RecordCounts }> {
    const { flags } = await this.parse(QuantEvaluate);
    const range = checkRequest<{ start?: string; end?: string }>(
      dateRangeQuery,
      {
        ...(flags.from === undefined ? {} : { start: flags.from }),
        ...(flags.to === undefined ? {} : { end: flags.to }),
      },
      'querystring',
      FLAG_NAMES,
    );
    const window = await withFlagNames(FLAG_NAMES, () => evaluationWindow(range));
    const costBps = flags['cost-bps'] === undefined ? this.settings.signalCostBps : costFlag(flags['cost-bps']);
    const { record } = checkRequest<{ record: RecordBasis }>(performanceQuery, { record: flags.record }, 'querystring', { record: '--record' });
    const evaluation = await this.withStore((store) => evaluatePublished(store.sql, window, costBps, record));
    const style = reportStyle(flags);
    this.log(wrapText([renderEvaluation(evaluation, style), '', ...recordLine(evaluation)].join('\n'), style.width));
    return evaluation;
  }
}

/** --cost-bps as SIGNAL_COST_BPS reads it: a number of basis points 0 to 10000, else a usage error naming the flag. */
function costFlag(text: string): number {
  try {
    return SETTINGS.signalCostBps.parse(text);
  } catch {
    throw validationError([{ field: '--cost-bps', message: `must be a number of basis points from 0 to 10000, got ${JSON.stringify(text)}` }]);
  }
}
