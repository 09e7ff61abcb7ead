import { TradesealCommand } from '../../src/cli/base-command.js';
import { checkRequest, withFlagNames } from '../../src/cli/engine-input.js';
import { renderEvaluation } from '../../src/cli/evaluation-view.js';
import { calendarDateFlag } from '../../src/cli/instant.js';
import { dateRangeQuery } from '../../src/signals/inputs.js';
import { evaluatePublished, evaluationWindow } from '../../src/signals/ops/evaluation.js';
import type { Evaluation } from '../../pipeline/reports/evaluate.js';
import { EVALUATION_WINDOWS } from '../../pipeline/reports/evaluation-windows.js';

const FLAG_NAMES = { start: '--from', end: '--to' };

export default class QuantEvaluate extends TradesealCommand {
  static override summary = 'Judge the published regimes: the regime strategy against buy-and-hold and the 200-day moving-average rule';
  static override description = `The regime strategy (each day's SPY exposure is the weight of the regime published the day before: expansion 1, recovery 0.75, tightening 0.25, risk_off 0) against buy-and-hold and the 200-day moving-average rule (in when the close of the day before is above the mean of the 200 closes ending on it, else out), on exactly the same days: a day is evaluated when it has the regime of the day before and 200 published closes before it. For each: Sharpe (risk-free 0), CAGR, max drawdown and Calmar with empyrical's conventions, average exposure, turnover per year (the sum of |exposure change| between consecutive days, per 252 days) and position changes per year; over the full window (${EVALUATION_WINDOWS.full.from} to ${EVALUATION_WINDOWS.full.to} unless --from/--to say otherwise), its in-sample (${EVALUATION_WINDOWS.in_sample.from} to ${EVALUATION_WINDOWS.in_sample.to}) and out-of-sample (${EVALUATION_WINDOWS.out_of_sample.from} to ${EVALUATION_WINDOWS.out_of_sample.to}) parts, and each calendar year, with the share of days in each regime, then whether the regime strategy is ahead of the 200-day rule on Sharpe and Calmar over the full window and not behind it out of sample (information). The same tables as npm run bench:signal. Exit 3 when nothing is published.`;
  static override examples = [
    '<%= config.bin %> quant evaluate',
    '<%= config.bin %> quant evaluate --from 2017-01-01 --to 2025-12-31',
    '<%= config.bin %> quant evaluate --json',
  ];
  static override flags = {
    from: calendarDateFlag({ summary: `First day of the full window, YYYY-MM-DD (inclusive; default ${EVALUATION_WINDOWS.full.from})` }),
    to: calendarDateFlag({ summary: `Last day of the full window, YYYY-MM-DD (inclusive; default ${EVALUATION_WINDOWS.full.to})` }),
  };

  async run(): Promise<Evaluation> {
    const { flags } = await this.parse(QuantEvaluate);
    const range = checkRequest<{ start?: string; end?: string }>(dateRangeQuery, {
      ...(flags.from === undefined ? {} : { start: flags.from }), ...(flags.to === undefined ? {} : { end: flags.to }),
    }, 'querystring', FLAG_NAMES);
    const window = await withFlagNames(FLAG_NAMES, () => evaluationWindow(range));
    const evaluation = await this.withStore((store) => evaluatePublished(store.sql, window));
    this.log(renderEvaluation(evaluation));
    return evaluation;
  }
}
