/**
 * The DuckDB loader: reads every catalogue file with `read_csv` (explicit column types, the file's own
 * missing-value marker, no sniffing) into one long table
 *
 *   obs(series VARCHAR, date DATE, value DOUBLE, usable_from DATE, open DOUBLE, dividend DOUBLE, split DOUBLE)
 *
 * with one row per file row (`open` for the bar layouts, `dividend` and `split` for `ohlcv_actions`, NULL
 * otherwise). A missing value stays as a row with `value` NULL: it says the publisher has
 * reached that date (a holiday), which the calendar uses to tell a late series from a quiet day.
 * `usable_from` is the first trading day published after the value's release under its series' release rule
 * (`catalogue.ts`, `../release/usable-from.ts`): the point-in-time rule every later stage applies with plain
 * date comparisons.
 *
 * Every file is validated (check-dir.ts, validate.ts) on another thread while DuckDB loads it: one problem
 * anywhere stops the load with one `data_invalid` error that lists every problem, by file and line, and
 * nothing computed from the files is returned. The loader
 * also hashes each file's bytes, for the data vintage. DuckDB's own refusals (a file that does not parse
 * with its layout, a repeated date) stay as a second line of defence and name the file too.
 */
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { TradesealError } from '../../src/core/errors.js';
import { CATALOGUE, isBarLayout, LAYOUTS, type SeriesSpec } from './catalogue.js';
import { assertNoProblems, readDataFiles } from './check-dir.js';
import { usableFromDays } from '../release/usable-days.js';
import { queryColumns, queryRows, sqlString } from './duckdb.js';
import { validateOffThread } from './validate-thread.js';

export interface InputFile {
  id: string;
  file: string;
  /** SHA-256 of the file's bytes, lower-case hex. */
  sha256: string;
  bytes: number;
}

export const dataError = (detail: string, hint?: string): TradesealError => new TradesealError('data_invalid', detail, hint ? { hint } : {});

/** DuckDB column types per layout: dates and values typed, so nothing depends on type sniffing. */
function columnTypes(spec: SeriesSpec): string {
  const names = LAYOUTS[spec.layout].header(spec.id);
  const type = (name: string): string => (name === 'date' ? 'DATE' : name === 'volume' ? 'BIGINT' : 'DOUBLE');
  return `{${names.map((n) => `${sqlString(n)}: ${sqlString(type(n))}`).join(', ')}}`;
}

/** The `read_csv(...)` call for one catalogue file. */
export function readCsvSql(spec: SeriesSpec, filePath: string): string {
  const options = ['header = true', 'auto_detect = false', "delim = ','", `quote = '"'`, "dateformat = '%Y-%m-%d'", `columns = ${columnTypes(spec)}`];
  // Layouts without a marker keep DuckDB's default (an empty field reads as NULL); the check after loading
  // then rejects any NULL, since a market file has rows only for trading days.
  if (spec.missingMarker !== null) options.push(`nullstr = ${sqlString(spec.missingMarker)}`);
  return `read_csv(${sqlString(filePath)}, ${options.join(', ')})`;
}

/**
 * Creates and fills `obs` from the files in `dataDir` and runs `compute` on it while every file is validated
 * on another thread (validate-thread.ts). What `compute` returns is returned only when every file passed;
 * otherwise `obs` is dropped and the one `data_invalid` error listing every problem is thrown, whatever
 * `compute` did with the rows of invalid files (its result or its error is dropped). `compute` gets each file's hash, in catalogue order.
 */
export async function withObservations<T>(
  conn: DuckDBConnection,
  dataDir: string,
  compute: (inputs: InputFile[]) => Promise<T>,
  catalogue: readonly SeriesSpec[] = CATALOGUE,
): Promise<T> {
  const files = await readDataFiles(dataDir, catalogue);
  const validation = validateOffThread(files);
  // Awaited below on every path; this only keeps an early failure from counting as unhandled meanwhile.
  validation.catch(() => undefined);
  const validated = async (): Promise<void> => {
    const reports = await validation;
    if (reports.every((r) => r.problems.length === 0)) return;
    // Nothing of invalid files stays loaded either.
    await conn.run('DROP TABLE IF EXISTS obs');
    assertNoProblems(reports, `the data files in ${dataDir} break their rules`);
  };
  let result: T;
  try {
    await insertAll(conn, files);
    await checkObservations(conn, catalogue);
    await assignReleases(conn, catalogue);
    result = await compute(
      files.map(({ spec, bytes }) => {
        const data = bytes ?? Buffer.alloc(0);
        return { id: spec.id, file: spec.file, sha256: createHash('sha256').update(data).digest('hex'), bytes: data.length };
      }),
    );
  } catch (err) {
    await validated();
    throw err;
  }
  await validated();
  return result;
}

/** Creates and fills `obs` from the valid files of `dataDir` (see `withObservations`); returns each file's hash. */
export const loadObservations = (conn: DuckDBConnection, dataDir: string, catalogue: readonly SeriesSpec[] = CATALOGUE): Promise<InputFile[]> =>
  withObservations(conn, dataDir, async (inputs) => inputs, catalogue);

/** `obs` with every file's rows, in one statement; if DuckDB refuses it, file by file, to name the file. */
async function insertAll(conn: DuckDBConnection, files: ReadonlyArray<{ spec: SeriesSpec; path: string }>): Promise<void> {
  await conn.run(
    'CREATE OR REPLACE TABLE obs (series VARCHAR NOT NULL, date DATE, value DOUBLE, usable_from DATE, open DOUBLE, dividend DOUBLE, split DOUBLE)',
  );
  try {
    await conn.run(`INSERT INTO obs ${files.map(({ spec, path: filePath }) => selectSeries(spec, filePath)).join('\nUNION ALL\n')}`);
  } catch {
    await conn.run('DELETE FROM obs');
    for (const { spec, path: filePath } of files) await insertSeries(conn, spec, filePath);
  }
}

const selectSeries = (spec: SeriesSpec, filePath: string): string =>
  // `open`: a market file's opening price (the published performance trades at the open), NULL for other layouts;
  // `dividend` and `split`: a share's corporate actions, from which its total returns are computed.
  `SELECT ${sqlString(spec.id)}, date, "${LAYOUTS[spec.layout].valueColumn(spec.id)}", NULL, ${isBarLayout(spec.layout) ? '"open"' : 'NULL'}, ` +
  `${spec.layout === 'ohlcv_actions' ? '"dividend", "split"' : 'NULL, NULL'} FROM ${readCsvSql(spec, filePath)}`;

/**
 * Fills `usable_from` of every row from its series' release rule. The rules need the business-day calendars
 * and time zones, so they run here rather than in SQL, once per rule and distinct date, in whole days
 * (`../release/usable-days.ts`); the results go back through an appender and one UPDATE.
 */
async function assignReleases(conn: DuckDBConnection, catalogue: readonly SeriesSpec[]): Promise<void> {
  const rules = [...new Set(catalogue.map((s) => s.release))];
  const ruleOf = catalogue.map((s) => `(${sqlString(s.id)}, ${rules.indexOf(s.release)})`);
  await conn.run(`CREATE OR REPLACE TEMP TABLE obs_rule AS SELECT * FROM (VALUES ${ruleOf.join(', ')}) AS r(series, rule)`);
  const { numbers, rows } = await queryColumns(
    conn,
    `
    SELECT DISTINCT r.rule, CAST(o.date - ${EPOCH} AS INTEGER) AS day
    FROM obs AS o JOIN obs_rule AS r USING (series) WHERE o.date IS NOT NULL ORDER BY r.rule, day`,
  );
  const ruleColumn = numbers.rule ?? new Float64Array(0);
  const dayColumn = numbers.day ?? new Float64Array(0);
  await conn.run('CREATE OR REPLACE TEMP TABLE obs_release (rule INTEGER, day INTEGER, usable INTEGER)');
  const appender = await conn.createAppender('obs_release');
  for (let from = 0; from < rows;) {
    const rule = ruleColumn[from]!;
    let to = from;
    while (to < rows && ruleColumn[to] === rule) to++;
    const days = dayColumn.subarray(from, to);
    const usable = usableFromDays(rules[rule]!, days);
    for (let n = 0; n < days.length; n++) {
      appender.appendInteger(rule);
      appender.appendInteger(days[n]!);
      appender.appendInteger(usable[n]!);
      appender.endRow();
    }
    from = to;
  }
  appender.closeSync();
  await conn.run(`
    UPDATE obs SET usable_from = ${EPOCH} + u.usable
    FROM obs_rule AS r, obs_release AS u
    WHERE obs.series = r.series AND u.rule = r.rule AND CAST(obs.date - ${EPOCH} AS INTEGER) = u.day`);
  await conn.run('DROP TABLE obs_release');
  await conn.run('DROP TABLE obs_rule');
}

/** Day 0 of `../release/usable-days.ts`'s day numbers. */
const EPOCH = "DATE '1970-01-01'";

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
  const rows = await queryRows(
    conn,
    `
    SELECT series,
           count(*) FILTER (WHERE date IS NULL) AS undated,
           count(date) - count(DISTINCT date) AS repeated,
           count(*) FILTER (WHERE value IS NULL AND series IN (${noMarker.length > 0 ? noMarker.join(', ') : "''"})) AS unexpected_missing
    FROM obs GROUP BY series
    HAVING undated > 0 OR repeated > 0 OR unexpected_missing > 0
    ORDER BY series`,
  );
  const file = (id: unknown): string => catalogue.find((s) => s.id === id)?.file ?? String(id);
  if (rows.length > 0) {
    throw dataError(
      `data files fail their checks: ${rows.map((r) => `${file(r.series)} (undated ${String(r.undated)}, repeated dates ${String(r.repeated)}, missing values ${String(r.unexpected_missing)})`).join('; ')}`,
    );
  }
}
