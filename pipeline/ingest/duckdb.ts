/**
 * The few DuckDB helpers the pipeline's data stages share: an in-memory database, SQL literals, and
 * reading a result as plain columns (numbers as `Float64Array` with NaN for NULL, text as strings).
 *
 * The pipeline's DuckDB work is an in-memory scratch space rebuilt from the CSV files on each run, so
 * nothing here persists; the published results go to Postgres elsewhere.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

export interface Database {
  conn: DuckDBConnection;
  close(): void;
}

/** An in-memory DuckDB. `threads` bounds its worker pool (the pipeline's target machine has 2 cores). */
export async function openDatabase(threads = 2): Promise<Database> {
  const instance = await DuckDBInstance.create(':memory:', { threads: String(threads) });
  const conn = await instance.connect();
  return {
    conn,
    close() {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

/** A SQL string literal. Paths and ids are spliced into SQL only through this (table functions take no parameters). */
export const sqlString = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/** A SQL date literal, for a value already checked to be an ISO date. */
export const sqlDate = (isoDate: string): string => `DATE ${sqlString(isoDate)}`;

/** Runs a query and returns its rows as objects of JS values (dates become `Date`, NULL `null`). */
export async function queryRows(conn: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  const reader = await conn.runAndReadAll(sql);
  return reader.getRowObjectsJS() as Record<string, unknown>[];
}

/**
 * Runs a query and returns each column: `text` columns as `string[]`, every other one as a `Float64Array`
 * (NULL → NaN). The caller casts dates to text in SQL, so they arrive as ISO strings.
 */
export async function queryColumns(
  conn: DuckDBConnection,
  sql: string,
  text: readonly string[] = [],
): Promise<{ numbers: Record<string, Float64Array>; strings: Record<string, string[]>; rows: number }> {
  const reader = await conn.runAndReadAll(sql);
  const names = reader.columnNames();
  const columns = reader.getColumnsJS();
  const numbers: Record<string, Float64Array> = {};
  const strings: Record<string, string[]> = {};
  names.forEach((name, i) => {
    const values = columns[i] ?? [];
    if (text.includes(name)) {
      strings[name] = values.map((v) => String(v));
      return;
    }
    const out = new Float64Array(values.length);
    for (let r = 0; r < values.length; r++) {
      const v = values[r];
      out[r] = v === null || v === undefined ? Number.NaN : Number(v);
    }
    numbers[name] = out;
  });
  return { numbers, strings, rows: reader.currentRowCount };
}
