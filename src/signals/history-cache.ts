/**
 * The published history in memory, for a long-running signal service: backtests and ranged performance
 * figures read the same rows, and the rows change only when a pipeline run publishes. So the service keeps one
 * copy, keyed by the newest publishing run, checked with one small query per request and reloaded (one read)
 * when a run has published since. A command, which runs once, reads its window directly instead.
 */
import type { Sql } from 'postgres';
import { backtestRows, newestPublication, type BacktestRow, type DateRange } from './store/quant.js';

/** The index of the first row whose date is ≥ `date` (rows sorted by date). */
function lowerBound(rows: readonly BacktestRow[], date: string): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid]!.date < date) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class PublishedHistoryCache {
  private entry: { runId: string; rows: BacktestRow[] } | null = null;

  /** Every published day with its closes, as of the newest publishing run. */
  async all(sql: Sql): Promise<BacktestRow[]> {
    const runId = await newestPublication(sql);
    if (runId === null) return [];
    if (this.entry?.runId !== runId) this.entry = { runId, rows: (await backtestRows(sql, {})).rows };
    return this.entry.rows;
  }

  /** The window's rows, and the published day before it first when there is one (as `backtestRows`). */
  async window(sql: Sql, range: DateRange): Promise<{ rows: BacktestRow[]; before: boolean }> {
    const rows = await this.all(sql);
    const from = range.start ? lowerBound(rows, range.start) : 0;
    const to = range.end ? lowerBound(rows, `${range.end}\u0000`) : rows.length;
    const before = from > 0 && from < to;
    return { rows: rows.slice(before ? from - 1 : from, Math.max(from, to)), before };
  }
}
