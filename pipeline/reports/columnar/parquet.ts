/**
 * A typed table (./table.ts) as a Parquet file (media type `application/vnd.apache.parquet`), written by
 * DuckDB: the rows go into an in-memory DuckDB table of the column types through its appender, in data
 * chunks (no SQL text is built from values), then `COPY … (FORMAT parquet)` writes a file in a private
 * temporary directory, which is read back and removed. Snappy compression, the one every Parquet reader has
 * built in (pure-JS and embedded readers often lack Zstandard). The exports it serves are bounded by the
 * tier's row cap (the whole bundled history is a few hundred kilobytes as Parquet).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  DATE, DOUBLE, DuckDBDataChunk, DuckDBDateValue, DuckDBTimestampTZValue, INTEGER, TIMESTAMPTZ, VARCHAR, type DuckDBType, type DuckDBValue,
} from '@duckdb/node-api';
import { openDatabase, sqlString } from '../../ingest/duckdb.js';
import { epochDay, type Column, type ColumnType, type ColumnarTable } from './table.js';

const SQL_TYPE: Record<ColumnType, string> = {
  date: 'DATE', category: 'VARCHAR', float64: 'DOUBLE', int32: 'INTEGER', timestamp: 'TIMESTAMPTZ',
};

/** A column name as a SQL identifier. The names are the report's own, never the caller's. */
const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`;

const DUCKDB_TYPE: Record<ColumnType, DuckDBType> = { date: DATE, category: VARCHAR, float64: DOUBLE, int32: INTEGER, timestamp: TIMESTAMPTZ };

/** A cell as DuckDB's value of the column's type. */
function duckValue(type: ColumnType, value: Column['values'][number] | undefined): DuckDBValue {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'date': return new DuckDBDateValue(epochDay(String(value)));
    case 'timestamp': return new DuckDBTimestampTZValue(BigInt(Date.parse(String(value))) * 1000n);
    case 'category': return String(value);
    case 'float64': case 'int32': return Number(value);
  }
}

/** DuckDB's vector size: a data chunk holds at most this many rows. */
const CHUNK_ROWS = 2048;

/** The Parquet file's bytes. */
export async function parquetFile(table: ColumnarTable): Promise<Uint8Array> {
  const db = await openDatabase(1);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tradeseal-parquet-'));
  try {
    await db.conn.run(`CREATE TABLE export (${table.columns.map((c) => `${ident(c.name)} ${SQL_TYPE[c.type]}`).join(', ')})`);
    // Whole column slices per call (a data chunk per 2,048 rows): a call per cell made a full-history export
    // several times slower, all of it on the event loop.
    const appender = await db.conn.createAppender('export');
    const types = table.columns.map((c) => DUCKDB_TYPE[c.type]);
    for (let start = 0; start < table.rows; start += CHUNK_ROWS) {
      const end = Math.min(table.rows, start + CHUNK_ROWS);
      const chunk = DuckDBDataChunk.create(types, end - start);
      chunk.setColumns(table.columns.map((c) => c.values.slice(start, end).map((v) => duckValue(c.type, v))));
      appender.appendDataChunk(chunk);
    }
    appender.closeSync();
    const file = path.join(dir, 'export.parquet');
    await db.conn.run(`COPY export TO ${sqlString(file)} (FORMAT parquet, COMPRESSION snappy)`);
    return new Uint8Array(await readFile(file));
  } finally {
    db.close();
    await rm(dir, { recursive: true, force: true });
  }
}
