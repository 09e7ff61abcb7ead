/**
 * Reading what the nightly run published for quants and analysts: the regimes and closes a backtest is
 * computed from, the latest forecast, the latest performance report and chart data, and the rows of the CSV
 * export. Each is one indexed query; the computing was done by the run (pipeline/reports/), but for a
 * backtest's arithmetic over its window (../ops/backtest.ts).
 */
import { availableAtText } from '../publish/published.js';
import type { Sql } from 'postgres';
import type { ExportSource } from '../../../pipeline/reports/export.js';
import type { ForecastEnvelope } from '../../../pipeline/reports/forecast.js';
import type { ChartData } from '../../../pipeline/reports/chart.js';
import type { PerformanceReport } from '../../../pipeline/reports/performance.js';
import type { MarketDay, RegimeDay } from '../../../pipeline/reports/strategy.js';

export interface DateRange {
  start?: string | null;
  end?: string | null;
}

/** A published day with its prices: what a backtest reads. */
export interface BacktestRow extends RegimeDay, MarketDay {}

/**
 * The published days of a window with their closes, in one read, and the published day before the window
 * (its regime sets the window's first exposure) first when there is one; `before` says whether it is there.
 */
export async function backtestRows(sql: Sql, range: DateRange): Promise<{ rows: BacktestRow[]; before: boolean }> {
  const start = range.start ?? null;
  const rows = await sql<Array<BacktestRow & { inside: boolean }>>`
    select s.date::text as date, s.regime, s.risk_score, m.spy_open, m.spy_close, m.spy_dividend, m.spy_split, m.gld_close, (${start}::date is null or s.date >= ${start}::date) as inside,
           ${sql.unsafe(availableAtText('s.available_at'))} as available_at
    from signal_days s left join market_days m using (date)
    where s.date >= coalesce((select max(date) from signal_days where date < ${start}::date), ${start}::date, '-infinity'::date)
      and (${range.end ?? null}::date is null or s.date <= ${range.end ?? null}::date)
    order by s.date`;
  // A window with no published day of its own has no day before it either.
  if (!rows.some((r) => r.inside)) return { rows: [], before: false };
  const before = !rows[0]!.inside;
  return { rows: rows.map(({ inside: _i, ...r }) => r), before };
}

/** The newest publishing run: what a cache of the published history is keyed on. */
export async function newestPublication(sql: Sql): Promise<string | null> {
  const [row] = await sql<Array<{ run_id: string }>>`
    select run_id from model_runs where status = 'published' order by finished_at desc nulls last, started_at desc limit 1`;
  return row?.run_id ?? null;
}

/** The forecast of the newest publishing run that made one. */
export async function latestForecast(sql: Sql): Promise<(ForecastEnvelope & { base_date: string; run_id: string; models: unknown }) | null> {
  const [row] = await sql<
    Array<{ run_id: string; generated_at: Date; base_date: string; horizon: number; rows: ForecastEnvelope['forecast']; models: unknown }>
  >`
    select f.run_id, f.generated_at, f.base_date::text as base_date, f.horizon, f.rows, f.models
    from forecasts f join model_runs r using (run_id) order by r.started_at desc limit 1`;
  if (!row) return null;
  return {
    horizon: row.horizon,
    generated_at: row.generated_at.toISOString().replace('Z', '+00:00'),
    forecast: row.rows,
    base_date: row.base_date,
    run_id: row.run_id,
    models: row.models,
  };
}

export interface PublishedReports {
  run_id: string;
  generated_at: Date;
  performance: PerformanceReport;
  chart_data: ChartData & { generated_at: string };
}

/** The performance report and chart data of the newest publishing run. */
export async function latestReports(sql: Sql): Promise<PublishedReports | null> {
  const [row] = await sql<Array<{ run_id: string; generated_at: Date; performance: PerformanceReport; chart_data: ChartData }>>`
    select p.run_id, p.generated_at, p.performance, p.chart_data
    from performance_reports p join model_runs r using (run_id) order by r.started_at desc limit 1`;
  if (!row) return null;
  return {
    run_id: row.run_id,
    generated_at: row.generated_at,
    performance: row.performance,
    chart_data: { ...row.chart_data, generated_at: row.generated_at.toISOString() },
  };
}

export type ExportRow = ExportSource;

/** How many rows an export of at most `limit` rows has. */
export async function exportSize(sql: Sql, limit: number): Promise<number> {
  const [row] = await sql<Array<{ n: number }>>`select least(count(*), ${limit})::int as n from signal_days`;
  return row?.n ?? 0;
}

/**
 * The newest `limit` published days, newest first: the rows of the CSV export, handed over in chunks (a
 * cursor), so a large export streams and can show its progress.
 */
export async function exportRows(sql: Sql, limit: number, onChunk: (rows: ExportRow[]) => void | Promise<void>, chunk = 2000): Promise<void> {
  await sql<ExportRow[]>`
    select date::text as date, regime, risk_score, prob_expansion, prob_recovery, prob_tightening, prob_risk_off,
           ${sql.unsafe(availableAtText('available_at'))} as available_at
    from signal_days order by date desc limit ${limit}`.cursor(chunk, async (rows) => {
    await onChunk(rows);
  });
}
