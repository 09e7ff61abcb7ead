/**
 * The published performance limited to the live record (`GET /v1/performance?record=live`, `tradeseal signals
 * performance --record live`): the regime strategy over the whole published history, split by the track-log
 * record its regimes rest on (pipeline/reports/live-days.ts), and the performance figures of the days resting on
 * live-logged regimes alone. Every answer says how many days it rests on, and how many were live, backfilled or
 * not logged, so a figure is never read without its basis.
 */
import type { Sql } from 'postgres';
import { liveStrategyDays, type LiveSelection } from '../../../pipeline/reports/live-days.js';
import { performanceReport, type PerformanceReport } from '../../../pipeline/reports/performance.js';
import { strategyDays, type MarketDay } from '../../../pipeline/reports/strategy.js';
import type { PublishedHistoryCache } from '../history-cache.js';
import { backtestRows } from '../store/quant.js';
import { firstLeafKinds } from '../store/track-log.js';
import type { RecordBasis } from '../inputs.js';

/** What a performance figure rests on: its basis, and the strategy's days by the record their regimes rest on. */
export interface RecordCounts {
  basis: RecordBasis;
  /** Days the figures rest on. */
  days: number;
  live_days: number;
  backfill_days: number;
  unlogged_days: number;
}

export type PerformanceWithRecord = PerformanceReport & { record: RecordCounts };

/** The strategy over the published history (at `costBps`), split by record. */
export async function recordSelection(sql: Sql, costBps: number, cache?: PublishedHistoryCache): Promise<LiveSelection> {
  const rows = cache ? await cache.all(sql) : (await backtestRows(sql, {})).rows;
  const strategy = strategyDays(rows, new Map<string, MarketDay>(rows.map((r) => [r.date, r])), costBps);
  return liveStrategyDays(rows, strategy, await firstLeafKinds(sql));
}

/**
 * `published` (the report the run published) with what it rests on, or, for the live basis, the same figures
 * over the live days alone, at the published report's cost.
 */
export async function performanceOn(sql: Sql, published: PerformanceReport, basis: RecordBasis, cache?: PublishedHistoryCache): Promise<PerformanceWithRecord> {
  const selection = await recordSelection(sql, published.cost_bps, cache);
  const { live, backfill, unlogged } = selection.counts;
  const report = basis === 'live' ? performanceReport(selection.live, published.cost_bps) : published;
  return { ...report, record: { basis, days: report.days, live_days: live, backfill_days: backfill, unlogged_days: unlogged } };
}
