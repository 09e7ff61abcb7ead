/**
 * The DuckDB loader: reads every catalogue file with `read_csv` (explicit column types, the file's own
 * missing-value marker, no sniffing) into one long table
 *
 *   obs(series VARCHAR, date DATE, value DOUBLE, usable_from DATE, open DOUBLE)
 *
 * with one row per file row. A missing value stays as a row with `value` NULL: it says the publisher has
 * reached that date (a holiday), which the calendar uses to tell a late series from a quiet day.
 * `usable_from` is the first trading day published after the value's release under its series' release rule
 * (`catalogue.ts`, `../release/usable-from.ts`): the point-in-time rule every later stage applies with plain
 * date comparisons.
 *
 * Before anything is loaded, every file is validated (check-dir.ts, validate.ts): one problem anywhere
 * stops the load with one `data_invalid` error that lists every problem, by file and line. The loader
 * also hashes each file's bytes, for the data vintage. DuckDB's own refusals (a file that does not parse
 * with its layout, a repeated date) stay as a second line of defence and name the file too.
 */
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { TradesealError } from '../../src/errors.js';
import { CATALOGUE, LAYOUTS, type SeriesSpec } from './catalogue.js';
import { assertNoProblems, readDataFiles, validateDataFiles } from './check-dir.js';
import { usableFrom } from '../release/usable-from.js';
import { queryColumns, queryRows, sqlString } from './duckdb.js';

export interface InputFile {
  id: string;
  file: string;
  /** SHA-256 of the file's bytes, lower-case hex. */
  sha256: string;
  bytes: number;
}

export const dataError = (detail: string, hint?: string): TradesealError =>
  new TradesealError('data_invalid', detail, hint ? { hint } : {});

/** DuckDB column types per layout: dates and values typed, so nothing depends on type sniffing. */
function columnTypes(spec: SeriesSpec): string {
  const names = LAYOUTS[spec.layout].header(spec.id);
  const type = (name: string): string => (name === 'date' ? 'DATE' : name === 'volume' ? 'BIGINT' : 'DOUBLE');
  return `{${names.map((n) => `${sqlString(n)}: ${sqlString(type(n))}`).join(', ')}}`;
}

/** The `read_csv(...)` call for one catalogue file. */
export function readCsvSql(spec: SeriesSpec, filePath: string): string {
  const options = [
    'header = true',
    'auto_detect = false',
    "delim = ','",
    `quote = '"'`,
    "dateformat = '%Y-%m-%d'",
    `columns = ${columnTypes(spec)}`,
  ];
  // Layouts without a marker keep DuckDB's default (an empty field reads as NULL); the check after loading
  // then rejects any NULL, since a yfinance file has rows only for trading days.
  if (spec.missingMarker !== null) options.push(`nullstr = ${sqlString(spec.missingMarker)}`);
  return `read_csv(${sqlString(filePath)}, ${options.join(', ')})`;
}

/**
 * Creates and fills `obs` from the files in `dataDir`, after validating every one of them (nothing is
 * loaded if any file has a problem). Returns each file's hash, in catalogue order.
 */
export async function loadObservations(conn: DuckDBConnection, dataDir: string, catalogue: readonly SeriesSpec[] = CATALOGUE): Promise<InputFile[]> {
  const files = await readDataFiles(dataDir, catalogue);
  assertNoProblems(validateDataFiles(files), `the data files in ${dataDir} break their rules`);
  await insertAll(conn, files);
  await checkObservations(conn, catalogue);
  await assignReleases(conn, catalogue);
  return files.map(({ spec, bytes }) => {
    const data = bytes ?? Buffer.alloc(0);
    return { id: spec.id, file: spec.file, sha256: createHash('sha256').update(data).digest('hex'), bytes: data.length };
  });
}

/** `obs` with every file's rows, in one statement; if DuckDB refuses it, file by file, to name the file. */
async function insertAll(conn: DuckDBConnection, files: ReadonlyArray<{ spec: SeriesSpec; path: string }>): Promise<void> {
  await conn.run('CREATE OR REPLACE TABLE obs (series VARCHAR NOT NULL, date DATE, value DOUBLE, usable_from DATE, open DOUBLE)');
  try {
    await conn.run(`INSERT INTO obs ${files.map(({ spec, path: filePath }) => selectSeries(spec, filePath)).join('\nUNION ALL\n')}`);
  } catch {
    await conn.run('DELETE FROM obs');
    for (const { spec, path: filePath } of files) await insertSeries(conn, spec, filePath);
  }
}

const selectSeries = (spec: SeriesSpec, filePath: string): string =>
  // `open`: a market file's opening price (the published performance trades at the open), NULL for other layouts.
  `SELECT ${sqlString(spec.id)}, date, "${LAYOUTS[spec.layout].valueColumn(spec.id)}", NULL, ${spec.layout === 'yfinance' ? '"open"' : 'NULL'} FROM ${readCsvSql(spec, filePath)}`;

/**
 * Fills `usable_from` of every row from its series' release rule. The rules need the
 * business-day calendars and time zones, so they run here rather than in SQL; the results go back through an
 * appender and one UPDATE.
 */
async function assignReleases(conn: DuckDBConnection, catalogue: readonly SeriesSpec[]): Promise<void> {
  const { strings, rows } = await queryColumns(conn, "SELECT series, strftime(date, '%Y-%m-%d') AS date FROM obs WHERE date IS NOT NULL", ['series', 'date']);
  const rules = new Map(catalogue.map((s) => [s.id, s.release]));
  await conn.run('CREATE OR REPLACE TEMP TABLE obs_release (series VARCHAR, date VARCHAR, usable_from VARCHAR)');
  const appender = await conn.createAppender('obs_release');
  const series = strings.series ?? [];
  const dates = strings.date ?? [];
  for (let i = 0; i < rows; i++) {
    const id = series[i] as string;
    appender.appendVarchar(id);
    appender.appendVarchar(dates[i] as string);
    appender.appendVarchar(usableFrom(rules.get(id)!, dates[i] as string));
    appender.endRow();
  }
  appender.closeSync();
  await conn.run(`
    UPDATE obs SET usable_from = CAST(r.usable_from AS DATE)
    FROM obs_release AS r WHERE obs.series = r.series AND obs.date = CAST(r.date AS DATE)`);
  await conn.run('DROP TABLE obs_release');
}

/**
 * Appends one file's rows to `obs`. Validated files always parse; if DuckDB still refuses one, the error
 * names the file and DuckDB's line.
 */
export async function insertSeries(conn: DuckDBConnection, spec: SeriesSpec, filePath: string): Promise<void> {
  try {
    await conn.run(`INSERT INTO obs ${selectSeries(spec, filePath)}`);
  } catch (e) {
    throw dataError(`${spec.file} does not parse with its catalogue layout (${spec.layout}): ${(e as Error).message.split('\n')[0]}`);
  }
}

/** Rejects what the SQL types cannot: undated rows, repeated dates, and gaps in layouts that have no marker. */
async function checkObservations(conn: DuckDBConnection, catalogue: readonly SeriesSpec[]): Promise<void> {
  const noMarker = catalogue.filter((s) => s.missingMarker === null).map((s) => sqlString(s.id));
  const rows = await queryRows(conn, `
    SELECT series,
           count(*) FILTER (WHERE date IS NULL) AS undated,
           count(date) - count(DISTINCT date) AS repeated,
           count(*) FILTER (WHERE value IS NULL AND series IN (${noMarker.length > 0 ? noMarker.join(', ') : "''"})) AS unexpected_missing
    FROM obs GROUP BY series
    HAVING undated > 0 OR repeated > 0 OR unexpected_missing > 0
    ORDER BY series`);
  const file = (id: unknown): string => catalogue.find((s) => s.id === id)?.file ?? String(id);
  if (rows.length > 0) {
    throw dataError(`data files fail their checks: ${rows.map((r) => `${file(r.series)} (undated ${String(r.undated)}, repeated dates ${String(r.repeated)}, missing values ${String(r.unexpected_missing)})`).join('; ')}`);
  }
}
