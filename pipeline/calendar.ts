/**
 * The trading calendar: the days with a GSPC close (docs/decisions/0028-trading-calendar.md), from the
 * first day on which every input has a usable value to the last day on which every input is current.
 *
 * Start: for each start group of the catalogue, the first `usable_from` of a non-missing value; the
 * calendar starts on the latest of these. On the bundled data that is 2002-12-19, the Thursday on which
 * the first H.4.1 week (Wednesday 2002-12-18, out on Thursday afternoon) is known when the day is
 * published the next morning; every market series starts earlier (the dollar through its DTWEXB backfill,
 * 1995). RRP does not hold the start back: before daily operations a missing RRP is 0. Trailing-window
 * features are NaN until their window is full (see `features/`).
 *
 * End: a series that binds the end is current until its next row would be released: the row its rhythm
 * says comes after its last one (the next weekday for a FRED daily series, which writes a row for holidays
 * too; the next Wednesday for H.4.1; the next trading day for a market file), released by the series' rule.
 * A file fetched before that release holds everything a run published until then could have used, the
 * last value carried forward; a day published after it would be computed without a value that was out. A
 * start group is current as long as its furthest member (the dollar: DTWEXB before 2006, DTWEXBGS after).
 * The calendar ends on the last trading day every group is current for. So a weekly series never holds
 * the newest day back (its last value is current for the week), and no day is published on a file that
 * may be missing a released value. On the bundled data: 2025-11-26, the last day published before the
 * WTREGEN week of 2025-11-26 is out (Friday 2025-11-28, after Thanksgiving), although the other series run to
 * the end of 2025.
 *
 * Everything reads the view `pit` (the `obs` rows usable as of the run's date), so the calendar of a run
 * "as of t" never looks past t.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { CATALOGUE, type SeriesSpec } from './ingest/catalogue.js';
import { addDays } from '../src/core/dates.js';
import { queryRows, sqlDate, sqlString } from './ingest/duckdb.js';
import { dataError } from './ingest/load.js';
import { isNyseTradingDay, weekday } from '../src/core/calendars/nyse.js';
import { usableFrom } from './release/usable-from.js';

export interface CalendarBounds {
  start: string;
  end: string;
  days: number;
}

/** The date of the row a series would have after `isoDate`, by its rhythm. */
export function nextRowDate(spec: SeriesSpec, isoDate: string): string {
  const step = spec.rhythm.kind === 'wednesdays' ? 7 : 1;
  let d = addDays(isoDate, step);
  if (spec.rhythm.kind === 'weekdays') while (weekday(d) === 0 || weekday(d) === 6) d = addDays(d, 1);
  if (spec.rhythm.kind === 'nyse') while (!isNyseTradingDay(d)) d = addDays(d, 1);
  return d;
}

/** `(series, start_group, binds_end, current_before)` of the catalogue as a SQL VALUES list. */
function specValues(catalogue: readonly SeriesSpec[], currentBefore: ReadonlyMap<string, string>): string {
  const rows = catalogue.map((s) => {
    const before = currentBefore.get(s.id);
    return `(${sqlString(s.id)}, ${s.startGroup === null ? 'NULL' : sqlString(s.startGroup)}, ${s.bindsEnd}, ${before === undefined ? 'NULL::DATE' : sqlDate(before)})`;
  });
  return `(VALUES ${rows.join(', ')}) AS spec(series, start_group, binds_end, current_before)`;
}

/**
 * Per series, the first trading day that its next row would be usable on (the series is current on the days
 * before): from the last row in `pit` and the release rule. Series without rows are absent.
 */
async function currentBefore(conn: DuckDBConnection, catalogue: readonly SeriesSpec[]): Promise<Map<string, string>> {
  const rows = await queryRows(conn, "SELECT series, strftime(max(date), '%Y-%m-%d') AS last FROM pit GROUP BY series");
  const out = new Map<string, string>();
  for (const r of rows) {
    const spec = catalogue.find((s) => s.id === r.series);
    if (spec && r.last !== null) out.set(spec.id, usableFrom(spec.release, nextRowDate(spec, String(r.last))));
  }
  return out;
}

/** SQL of the per-series limits: first usable value (start groups) and the day its next row would be usable (end). */
export function seriesLimitsSql(catalogue: readonly SeriesSpec[], current: ReadonlyMap<string, string>): string {
  return `
    SELECT spec.series, spec.start_group, spec.binds_end,
           min(pit.usable_from) FILTER (WHERE pit.value IS NOT NULL) AS first_usable,
           spec.current_before
    FROM ${specValues(catalogue, current)}
    LEFT JOIN pit ON pit.series = spec.series
    GROUP BY spec.series, spec.start_group, spec.binds_end, spec.current_before`;
}

/** Creates the table `calendar(date)` from the view `pit` and returns its bounds. */
export async function buildCalendar(conn: DuckDBConnection, catalogue: readonly SeriesSpec[] = CATALOGUE, equity = 'GSPC'): Promise<CalendarBounds> {
  await conn.run(`CREATE OR REPLACE TEMP TABLE series_limits AS ${seriesLimitsSql(catalogue, await currentBefore(conn, catalogue))}`);
  await conn.run(`
    CREATE OR REPLACE TEMP TABLE end_groups AS
    SELECT coalesce(start_group, series) AS name, max(current_before) AS current_before
    FROM series_limits WHERE binds_end GROUP BY ALL`);
  const missing = await queryRows(
    conn,
    `
    SELECT name FROM (
      SELECT start_group AS name FROM series_limits WHERE start_group IS NOT NULL GROUP BY start_group HAVING count(first_usable) = 0
      UNION SELECT name FROM end_groups WHERE current_before IS NULL
    ) ORDER BY name`,
  );
  if (missing.length > 0) {
    throw dataError(`no usable data for ${missing.map((r) => String(r.name)).join(', ')} (before the as-of date, if one was given)`);
  }
  await conn.run(`
    CREATE OR REPLACE TEMP TABLE calendar AS
    WITH groups AS (
      SELECT start_group, min(first_usable) AS first_usable FROM series_limits WHERE start_group IS NOT NULL GROUP BY start_group
    ), bounds AS (
      SELECT (SELECT max(first_usable) FROM groups) AS start_date,
             (SELECT min(current_before) FROM end_groups) AS end_before
    )
    SELECT pit.date
    FROM pit, bounds
    WHERE pit.series = ${sqlString(equity)} AND pit.value IS NOT NULL AND pit.date >= bounds.start_date AND pit.date < bounds.end_before
    ORDER BY pit.date`);
  const [row] = await queryRows(conn, "SELECT strftime(min(date), '%Y-%m-%d') AS s, strftime(max(date), '%Y-%m-%d') AS e, count(*) AS n FROM calendar");
  if (!row || row.s === null) throw dataError('the trading calendar is empty: the inputs have no day in common');
  return { start: String(row.s), end: String(row.e), days: Number(row.n) };
}
