/**
 * The trading calendar: the days with a GSPC close (the pipeline spec, `PIPELINE.md`, "Trading calendar"), from the
 * first day on which every input has a usable value to the last day on which every input is current.
 *
 * Start: for each start group of the catalogue, the first `usable_from` of a non-missing value; the
 * calendar starts on the latest of these. On the bundled data that is 2002-12-19, the Thursday on which
 * the first H.4.1 week (Wednesday 2002-12-18) became usable; every market series starts earlier (the
 * dollar through its DTWEXB backfill, 1995). RRP does not hold the start back: before daily operations a
 * missing RRP is 0. Trailing-window features are NaN until their window is full (see `features/`).
 *
 * End: each series that binds the end covers up to its last row's date plus `coverDays` (a weekly value
 * is the current one until the next Wednesday; a daily series covers the last date its publisher has
 * reached, holidays included, since FRED writes a row with a missing value for them). A start group is
 * covered as far as its furthest member (the dollar: DTWEXB before 2006, DTWEXBGS after). The calendar
 * ends on the earliest of these, so no day is published on stale inputs. On the bundled data: 2025-11-26, one
 * week after the last WTREGEN week (2025-11-19), although the other series run to the end of 2025.
 *
 * Everything reads the view `pit` (the `obs` rows usable as of the run's date), so the calendar of a run
 * "as of t" never looks past t.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { CATALOGUE, type SeriesSpec } from './ingest/catalogue.js';
import { queryRows, sqlString } from './ingest/duckdb.js';
import { dataError } from './ingest/load.js';

export interface CalendarBounds {
  start: string;
  end: string;
  days: number;
}

/** `(series, start_group, binds_end, cover_days)` of the catalogue as a SQL VALUES list. */
function specValues(catalogue: readonly SeriesSpec[]): string {
  const rows = catalogue.map((s) => `(${sqlString(s.id)}, ${s.startGroup === null ? 'NULL' : sqlString(s.startGroup)}, ${s.bindsEnd}, ${s.coverDays})`);
  return `(VALUES ${rows.join(', ')}) AS spec(series, start_group, binds_end, cover_days)`;
}

/** SQL of the per-series limits: first usable value (start groups) and date covered through (end). */
export function seriesLimitsSql(catalogue: readonly SeriesSpec[] = CATALOGUE): string {
  return `
    SELECT spec.series, spec.start_group, spec.binds_end,
           min(pit.usable_from) FILTER (WHERE pit.value IS NOT NULL) AS first_usable,
           max(pit.date) + spec.cover_days AS covered_through
    FROM ${specValues(catalogue)}
    LEFT JOIN pit ON pit.series = spec.series
    GROUP BY spec.series, spec.start_group, spec.binds_end, spec.cover_days`;
}

/** Creates the table `calendar(date)` from the view `pit` and returns its bounds. */
export async function buildCalendar(conn: DuckDBConnection, catalogue: readonly SeriesSpec[] = CATALOGUE, equity = 'GSPC'): Promise<CalendarBounds> {
  await conn.run(`CREATE OR REPLACE TEMP TABLE series_limits AS ${seriesLimitsSql(catalogue)}`);
  await conn.run(`
    CREATE OR REPLACE TEMP TABLE end_groups AS
    SELECT coalesce(start_group, series) AS name, max(covered_through) AS covered_through
    FROM series_limits WHERE binds_end GROUP BY ALL`);
  const missing = await queryRows(conn, `
    SELECT name FROM (
      SELECT start_group AS name FROM series_limits WHERE start_group IS NOT NULL GROUP BY start_group HAVING count(first_usable) = 0
      UNION SELECT name FROM end_groups WHERE covered_through IS NULL
    ) ORDER BY name`);
  if (missing.length > 0) {
    throw dataError(`no usable data for ${missing.map((r) => String(r.name)).join(', ')} (before the as-of date, if one was given)`);
  }
  await conn.run(`
    CREATE OR REPLACE TEMP TABLE calendar AS
    WITH groups AS (
      SELECT start_group, min(first_usable) AS first_usable FROM series_limits WHERE start_group IS NOT NULL GROUP BY start_group
    ), bounds AS (
      SELECT (SELECT max(first_usable) FROM groups) AS start_date,
             (SELECT min(covered_through) FROM end_groups) AS end_date
    )
    SELECT pit.date
    FROM pit, bounds
    WHERE pit.series = ${sqlString(equity)} AND pit.value IS NOT NULL AND pit.date BETWEEN bounds.start_date AND bounds.end_date
    ORDER BY pit.date`);
  const [row] = await queryRows(conn, "SELECT strftime(min(date), '%Y-%m-%d') AS s, strftime(max(date), '%Y-%m-%d') AS e, count(*) AS n FROM calendar");
  if (!row || row.s === null) throw dataError('the trading calendar is empty: the inputs have no day in common');
  return { start: String(row.s), end: String(row.e), days: Number(row.n) };
}
