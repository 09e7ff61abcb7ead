/**
 * The signal-quality evaluation of what is published (`tradeseal quant evaluate`): the published regimes and
 * SPY prices, read once, judged by pipeline/reports/evaluate.ts over a full window (2007-01-01 to 2025-12-31
 * unless the caller gives bounds), net of the caller's cost per unit of exposure change. A window that ends before it starts is `validation_failed` on `start`, as
 * a backtest's is (./date-range.ts); nothing published, or no day of the window that can be evaluated, is
 * `not_found` (exit 3) saying why.
 */
import type { Sql } from 'postgres';
import { notFound } from '../../core/errors.js';
import { evaluate, type Evaluation } from '../../../pipeline/reports/evaluate.js';
import { fullWindow, type DateWindow } from '../../../pipeline/reports/evaluation-windows.js';
import { MOVING_AVERAGE_DAYS } from '../../../pipeline/reports/moving-average.js';
import { loadResearchTrials } from '../../../pipeline/reports/research-trials.js';
import { publishedHistory, publishedMarket } from '../publish/published.js';
import { checkDateRange } from './date-range.js';
import { liveStrategyDays } from '../../../pipeline/reports/live-days.js';
import { strategyDays } from '../../../pipeline/reports/strategy.js';
import type { RecordBasis } from '../inputs.js';
import { firstLeafKinds } from '../store/track-log.js';
import type { RecordCounts } from './track-record.js';

/** The full window of a request (its bounds, the default's where it gives none), checked before anything is read. */
export function evaluationWindow(range: { start?: string; end?: string }): DateWindow {
  const window = fullWindow({ ...(range.start === undefined ? {} : { from: range.start }), ...(range.end === undefined ? {} : { to: range.end }) });
  checkDateRange(window.from, window.to);
  return window;
}

/**
 * The evaluation of the published regimes over `window`; with `record` `live`, on the days resting on regimes
 * logged live in the track log alone (src/signals/ops/track-record.ts), with how many days each basis holds.
 */
export async function evaluatePublished(
  sql: Sql,
  window: DateWindow,
  costBps: number,
  record: RecordBasis = 'all',
): Promise<Evaluation & { record: RecordCounts }> {
  const [history, market] = await Promise.all([publishedHistory(sql, null), publishedMarket(sql, null)]);
  if (history.length === 0) throw notFound('no regime is published yet: there is nothing to evaluate', 'run the pipeline: `tradeseal pipeline run`');
  const selection = liveStrategyDays(history, strategyDays(history, new Map(market.map((m) => [m.date, m])), costBps), await firstLeafKinds(sql));
  const only = record === 'live' ? new Set(selection.live.map((d) => d.date)) : null;
  // With how sure the comparisons are: the bootstrap intervals, and the deflated Sharpe ratio against the research's variants.
  const evaluation = evaluate(history, market, window, costBps, { trials: loadResearchTrials() }, only);
  const { evaluable } = evaluation;
  const counts: RecordCounts = {
    basis: record,
    days: evaluation.windows.full.days,
    live_days: selection.counts.live,
    backfill_days: selection.counts.backfill,
    unlogged_days: selection.counts.unlogged,
  };
  if (record === 'live' && evaluable.days === 0) {
    throw notFound(
      `no evaluable day rests on regimes logged live: of the strategy's ${selection.live.length + selection.counts.backfill + selection.counts.unlogged} days, ${selection.counts.live} rest on live regimes, ${selection.counts.backfill} on backfilled ones and ${selection.counts.unlogged} on regimes published before the track log`,
      'the live record grows with each nightly publication; without --record live the whole published history is evaluated (a backtest)',
    );
  }
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
  return { ...evaluation, record: counts };
}
