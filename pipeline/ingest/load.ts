/**
 * The DuckDB loader: reads every catalogue file with `read_csv` (explicit column types, the file's own
 * missing-value marker, no sniffing) into one long table
 *
 *   obs(series VARCHAR, date DATE, value DOUBLE, usable_from DATE)
 *
 * with one row per file row. A missing value stays as a row with `value` NULL: it says the publisher has
 * reached that date (a holiday), which the calendar uses to tell a late series from a quiet day.
 * `usable_from = date + lagDays` is the point-in-time rule (see `catalogue.ts`).
 *
 * The loader also hashes each file's bytes, for the data vintage, and refuses files whose header or
 * contents do not match the catalogue, so a swapped or truncated file fails loudly instead of loading wrong.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { EXIT, TradesealError } from '../../src/errors.js';
import { CATALOGUE, LAYOUTS, type SeriesSpec } from './catalogue.js';
import { queryRows, sqlString } from './duckdb.js';

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

async function readInput(spec: SeriesSpec, dataDir: string): Promise<InputFile> {
  const filePath = path.join(dataDir, spec.file);
  let bytes: Buffer;
  try {
    bytes = await readFile(filePath);
  } catch (e) {
    throw dataError(`data file ${filePath} cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
      'copy the series into PIPELINE_DATA_DIR (see data/macro/PROVENANCE.md) or refresh them from FRED');
  }
  const firstLine = bytes.subarray(0, Math.max(0, bytes.indexOf(0x0a))).toString('utf8').replace(/\r$/, '');
  const expected = LAYOUTS[spec.layout].header(spec.id).join(',');
  if (firstLine !== expected) {
    throw dataError(`${spec.file}: header ${JSON.stringify(firstLine)}, expected ${JSON.stringify(expected)} (layout ${spec.layout})`);
  }
  return { id: spec.id, file: spec.file, sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length };
}

/** Creates and fills `obs` from the files in `dataDir`. Returns each file's hash, in catalogue order. */
export async function loadObservations(conn: DuckDBConnection, dataDir: string, catalogue: readonly SeriesSpec[] = CATALOGUE): Promise<InputFile[]> {
  const inputs = await Promise.all(catalogue.map((spec) => readInput(spec, dataDir)));
  await conn.run('CREATE OR REPLACE TABLE obs (series VARCHAR NOT NULL, date DATE, value DOUBLE, usable_from DATE)');
  const selects = catalogue.map((spec) => {
    const value = LAYOUTS[spec.layout].valueColumn(spec.id);
    return `SELECT ${sqlString(spec.id)}, date, "${value}", date + ${spec.lagDays} FROM ${readCsvSql(spec, path.join(dataDir, spec.file))}`;
  });
  try {
    await conn.run(`INSERT INTO obs ${selects.join('\nUNION ALL\n')}`);
  } catch (e) {
    throw dataError(`a data file does not parse with its catalogue layout: ${(e as Error).message.split('\n')[0]}`);
  }
  await checkObservations(conn, catalogue);
  return inputs;
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
  const first = rows[0];
  if (first) {
    throw dataError(`data files fail their checks: ${rows.map((r) => `${String(r.series)} (undated ${String(r.undated)}, repeated dates ${String(r.repeated)}, missing values ${String(r.unexpected_missing)})`).join('; ')}`);
  }
}
