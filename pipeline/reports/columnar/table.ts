/**
 * A typed table for the binary exports (Apache Arrow IPC and Parquet): named columns in order, each with one
 * of a few types a quant's reader maps to its own (pandas, polars, R, DuckDB), and its values. Values are
 * plain JS: a `date` is `YYYY-MM-DD`, a `timestamp` an ISO-8601 UTC instant; `null` is a null in the file.
 * The writers (./arrow.ts, ./parquet.ts) take this and nothing else, so what a column is typed as is decided
 * once, where the report defines its columns.
 */

/**
 * `date`: a calendar day (Arrow Date32, Parquet DATE); `category`: a string from a small closed set, never
 * null (Arrow dictionary of Utf8 with Int8 indices, Parquet a dictionary-encoded STRING); `float64`; `int32`;
 * `timestamp`: a UTC instant (Arrow Timestamp(ms, "UTC"), Parquet TIMESTAMP(µs, adjusted to UTC)).
 */
export type ColumnType = 'date' | 'category' | 'float64' | 'int32' | 'timestamp';

export type CellValue = string | number | null;

export interface Column {
  name: string;
  type: ColumnType;
  /** A `category` column's closed set, in order: an Arrow file's dictionary (every entry, used or not). */
  categories?: readonly string[];
  values: CellValue[];
}

export interface ColumnarTable {
  columns: Column[];
  rows: number;
}

export interface ColumnSpec<Row> {
  name: string;
  type: ColumnType;
  categories?: readonly string[];
  value: (row: Row) => CellValue;
}

/** The table of `rows` under `spec`, column by column in the spec's order. */
export function columnarTable<Row>(spec: readonly ColumnSpec<Row>[], rows: readonly Row[]): ColumnarTable {
  return {
    columns: spec.map((c) => ({ name: c.name, type: c.type, ...(c.categories ? { categories: c.categories } : {}), values: rows.map(c.value) })),
    rows: rows.length,
  };
}

/** Days since 1970-01-01 of a `YYYY-MM-DD` day: what Arrow's Date32 and Parquet's DATE store. */
export const epochDay = (day: string): number => Date.parse(`${day}T00:00:00Z`) / 86_400_000;
