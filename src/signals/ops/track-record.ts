/**
 * The published performance and chart data limited to the live record (`GET /v1/performance?record=live`,
 * `GET /v1/public/chart-data?record=live`, `tradeseal signals performance --record live`): the regime strategy
 * over the whole published history, split by the track-log record its regimes rest on
 * (pipeline/reports/live-days.ts), and the figures of the days resting on live-logged regimes alone (in the
 * chart, a day resting on anything else earns no return: its lines stay flat). Every answer says how many days it
 * rests on, and how many were live, backfilled or not logged, so a figure is never read without its basis.
 */
import type { Sql } from 'postgres';
import { chartData, type ChartData } from '../../../pipeline/reports/chart.js';
import { liveStrategyDays, type LiveSelection } from '../../../pipeline/reports/live-days.js';
import { performanceReport, type PerformanceReport } from '../../../pipeline/reports/performance.js';
import { strategyDays, type MarketDay, type RegimeDay, type StrategyDay } from '../../../pipeline/reports/strategy.js';
import type { PublishedHistoryCache } from '../history-cache.js';
import type { RecordBasis } from '../inputs.js';
import { backtestRows } from '../store/quant.js';
import { firstLeafKinds } from '../store/track-log.js';

/** What a figure rests on: its basis, the days with a return it counts, and the days of its span by the record of their regimes. */
export interface RecordCounts {
  basis: RecordBasis;
  days: number;
  live_days: number;
  backfill_days: number;
  unlogged_days: number;
}

interface Record_ {
  /** The published days, oldest first. */
  days: RegimeDay[];
  /** The strategy over them. */
  strategy: StrategyDay[];
  /** Each logged day's first leaf's kind. */
  kinds: Map<string, string>;
}

async function publishedRecord(sql: Sql, costBps: number, cache?: PublishedHistoryCache): Promise<Record_> {
  const rows = cache ? await cache.all(sql) : (await backtestRows(sql, {})).rows;
  const strategy = strategyDays(rows, new Map<string, MarketDay>(rows.map((r) => [r.date, r])), costBps);
  return { days: rows, strategy, kinds: await firstLeafKinds(sql) };
}

/**
 * A long-running service's copy of the record, kept while the newest publishing run and the track log's size stay
 * the same (one small query a request): the routes then do no work in proportion to the history. A command,
 * which runs once, computes it directly.
 */
export class RecordCache {
  private entry: { key: string; value: Record_ } | null = null;

  async get(sql: Sql, costBps: number, history?: PublishedHistoryCache): Promise<Record_> {
    const [now] = await sql<Array<{ run_id: string | null; tree_size: number | null }>>`
      select (select run_id from model_runs where status = 'published' order by finished_at desc nulls last, started_at desc limit 1) as run_id,
             (select tree_size from signal_log_state) as tree_size`;
    const key = `${now?.run_id ?? '-'}:${now?.tree_size ?? '-'}:${costBps}`;
    if (this.entry?.key !== key) this.entry = { key, value: await publishedRecord(sql, costBps, history) };
    return this.entry.value;
  }
}

/** Where a route or a command takes the published history and the record from. */
export interface RecordSources {
  history?: PublishedHistoryCache;
  records?: RecordCache;
}

const recordOf = (sql: Sql, costBps: number, from: RecordSources): Promise<Record_> =>
  from.records ? from.records.get(sql, costBps, from.history) : publishedRecord(sql, costBps, from.history);

const countsOf = (basis: RecordBasis, days: number, s: LiveSelection): RecordCounts => ({
  basis,
  days,
  live_days: s.counts.live,
  backfill_days: s.counts.backfill,
  unlogged_days: s.counts.unlogged,
});

export type PerformanceWithRecord = PerformanceReport & { record: RecordCounts };

/**
 * `published` (the report the run published) with what it rests on, or, for the live basis, the same figures
 * over the live days alone, at the published report's cost.
 */
export async function performanceOn(sql: Sql, published: PerformanceReport, basis: RecordBasis, from: RecordSources = {}): Promise<PerformanceWithRecord> {
  const r = await recordOf(sql, published.cost_bps, from);
  const selection = liveStrategyDays(r.days, r.strategy, r.kinds);
  const report = basis === 'live' ? performanceReport(selection.live, published.cost_bps) : published;
  return { ...report, record: countsOf(basis, report.days, selection) };
}

export type ChartWithRecord = ChartData & { generated_at: string; record: RecordCounts };

/**
 * The published chart data with what its window rests on, or, for the live basis, the chart of the same window
 * with only the live days' returns, at the published report's cost (`costBps`).
 */
export async function chartOn(
  sql: Sql,
  published: ChartData & { generated_at: string },
  costBps: number,
  basis: RecordBasis,
  from: RecordSources = {},
): Promise<ChartWithRecord> {
  const r = await recordOf(sql, costBps, from);
  // The window's returns: every day of the series but its first, the base.
  const window = new Set(published.series.slice(1).map((row) => row.date));
  const selection = liveStrategyDays(
    r.days,
    r.strategy.filter((d) => window.has(d.date)),
    r.kinds,
  );
  if (basis === 'all')
    return { ...published, record: countsOf(basis, selection.counts.live + selection.counts.backfill + selection.counts.unlogged, selection) };
  return {
    ...chartData(r.days, selection.live, published.days),
    generated_at: published.generated_at,
    record: countsOf(basis, selection.live.length, selection),
  };
}
