/**
 * A typed table (./table.ts) as a Parquet file (media type `application/vnd.apache.parquet`), written by
 * hyparquet-writer, a pure-JavaScript writer: the HTTP server serves Parquet exports without loading DuckDB (the
 * pipeline's batch engine stays in the pipeline's processes). The schema is explicit, with the types DuckDB gave
 * these columns before: a date is `INT32 DATE`, a category `BYTE_ARRAY UTF8`, a number `DOUBLE` or `INT32`, an
 * instant `INT64 TIMESTAMP(MICROS, UTC)`; every column may hold nulls. Snappy compression, the one every Parquet
 * reader has built in (pure-JS and embedded readers often lack Zstandard). The exports it serves are bounded by
 * the tier's row cap (the whole bundled history is a few hundred kilobytes as Parquet).
 */
import { parquetWriteBuffer } from 'hyparquet-writer';
import { epochDay, type Column, type ColumnType, type ColumnarTable } from './table.js';

type SchemaElement = NonNullable<Parameters<typeof parquetWriteBuffer>[0]['schema']>[number];

const ELEMENT: Record<ColumnType, Omit<SchemaElement, 'name'>> = {
  date: { type: 'INT32', converted_type: 'DATE' },
  category: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
  float64: { type: 'DOUBLE' },
  int32: { type: 'INT32' },
  timestamp: { type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' } },
};

/** A column's cells as the writer's values of its Parquet type (days since the epoch, microseconds as bigint). */
function cells(type: ColumnType, values: Column['values']): unknown[] {
  return values.map((value) => {
    if (value === null || value === undefined) return null;
    switch (type) {
      case 'date':
        return epochDay(String(value));
      case 'timestamp':
        return BigInt(Date.parse(String(value))) * 1000n;
      case 'category':
        return String(value);
      case 'float64':
      case 'int32':
        return Number(value);
    }
  });
}

/** The Parquet file's bytes. */
export async function parquetFile(table: ColumnarTable): Promise<Uint8Array> {
  const schema: SchemaElement[] = [
    { name: 'root', num_children: table.columns.length },
    ...table.columns.map((c) => ({ name: c.name, repetition_type: 'OPTIONAL' as const, ...ELEMENT[c.type] })),
  ];
  const buffer = parquetWriteBuffer({
    columnData: table.columns.map((c) => ({ name: c.name, data: cells(c.type, c.values) as never })),
    schema,
    codec: 'SNAPPY',
    createdBy: 'tradeseal',
  });
  return new Uint8Array(buffer);
}
