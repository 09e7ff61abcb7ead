/**
 * The signal-quality evaluation of what is published (`tradeseal quant evaluate`): the published regimes and
 * SPY prices, read once, judged by pipeline/reports/evaluate.ts over a full window (2007-01-01 to 2025-12-31
 * unless the caller gives bounds), net of the caller's cost per unit of exposure change. A window that ends before it starts is `validation_failed` on `start`, as
 * a backtest's is (./date-range.ts); nothing published, or no day of the window that can be evaluated, is
 * `not_found` (exit 3) saying why.
 */
import type { Sql } from 'postgres';
import { notFound } from '../../errors.js';
import { evaluate, type Evaluation } from '../../../pipeline/reports/evaluate.js';
import { fullWindow, type DateWindow } from '../../../pipeline/reports/evaluation-windows.js';
import { MOVING_AVERAGE_DAYS } from '../../../pipeline/reports/moving-average.js';
import { loadResearchTrials } from '../../../pipeline/reports/research-trials.js';
import { publishedHistory, publishedMarket } from '../../../pipeline/publish/published.js';
import { checkDateRange } from './date-range.js';

/** The full window of a request (its bounds, the default's where it gives none), checked before anything is read. */
export function evaluationWindow(range: { start?: string; end?: string }): DateWindow {
  const window = fullWindow({ ...(range.start === undefined ? {} : { from: range.start }), ...(range.end === undefined ? {} : { to: range.end }) });
  checkDateRange(window.from, window.to);
  return window;
}

export async function evaluatePublished(sql: Sql, window: DateWindow, costBps: number): Promise<Evaluation> {
  const [history, market] = await Promise.all([publishedHistory(sql, null), publishedMarket(sql, null)]);
  if (history.length === 0) throw notFound('no regime is published yet: there is nothing to evaluate', 'run the pipeline: `tradeseal pipeline run`');
  // With how sure the comparisons are: the bootstrap intervals, and the deflated Sharpe ratio against the research's variants.
  const evaluation = evaluate(history, market, window, costBps, { trials: loadResearchTrials() });
  const { evaluable } = evaluation;
  if (evaluable.days === 0) {
    throw notFound(
      `no published day can be evaluated: the history has ${history.length} days (${history[0]!.date} to ${history.at(-1)!.date}), and a day needs ${MOVING_AVERAGE_DAYS} published closes before it`,
      'publish a longer history: `tradeseal pipeline run`',
    );
  }
  if (evaluation.windows.full.days === 0) {
    throw notFound(
      `no day between ${window.from} and ${window.to} can be evaluated: the evaluated days run from ${evaluable.first_day} to ${evaluable.last_day}`,
      'choose --from and --to within them',
    );
  }
  return evaluation;
}
