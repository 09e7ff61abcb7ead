/**
 * A typed table (./table.ts) as an Apache Arrow IPC file (the "Feather v2" file format, media type
 * `application/vnd.apache.arrow.file`), written with apache-arrow: one record batch, the columns in the
 * table's order, nulls as nulls. The whole file is built in memory; the exports it serves are bounded by
 * the tier's row cap.
 */
import {
  DateDay,
  Dictionary,
  Float64,
  Int32,
  Int8,
  RecordBatch,
  Table,
  TimeUnit,
  Timestamp,
  Utf8,
  makeData,
  makeVector,
  tableToIPC,
  vectorFromArray,
  type Data,
  type DataType,
  type Vector,
} from 'apache-arrow';
import type { Column, ColumnType, ColumnarTable } from './table.js';

const arrowType = (type: ColumnType): DataType => {
  switch (type) {
    case 'date':
      return new DateDay();
    case 'category':
      return new Dictionary(new Utf8(), new Int8());
    case 'float64':
      return new Float64();
    case 'int32':
      return new Int32();
    case 'timestamp':
      return new Timestamp(TimeUnit.MILLISECOND, 'UTC');
  }
};

/** Arrow's builders take dates and timestamps as milliseconds since the epoch. */
const arrowValue = (type: ColumnType, value: Column['values'][number]): unknown => {
  if (value === null) return null;
  if (type === 'date') return Date.parse(`${value}T00:00:00Z`);
  if (type === 'timestamp') return Date.parse(String(value));
  return value;
};

/**
 * A category column's dictionary is its whole closed set, in order, whatever the rows use: codes are stable
 * across exports, and a file of no rows still carries its dictionary (some readers refuse one without).
 */
function categoryVector(column: Column): Vector {
  const categories = column.categories ?? [];
  const codes = Int8Array.from(column.values, (v) => {
    const code = categories.indexOf(String(v));
    if (code < 0) throw new Error(`${column.name}: ${String(v)} is not one of ${categories.join(', ')}`);
    return code;
  });
  const type = new Dictionary(new Utf8(), new Int8());
  return makeVector(makeData({ type, length: codes.length, nullCount: 0, data: codes, dictionary: vectorFromArray([...categories], new Utf8()) }));
}

const vectorOf = (column: Column): Vector =>
  column.type === 'category'
    ? categoryVector(column)
    : vectorFromArray(
        column.values.map((v) => arrowValue(column.type, v)),
        arrowType(column.type),
      );

/** A column as one contiguous chunk (the builders make one for a table of this size). */
function chunkOf(column: Column): Data {
  const vector = vectorOf(column);
  if (vector.data.length !== 1) throw new Error(`${column.name}: expected one chunk, got ${vector.data.length}`);
  return vector.data[0]!;
}

/**
 * The Arrow IPC file's bytes: one record batch, written even when it has no rows (a table of empty
 * vectors alone would be written with none, and a dictionary column's readers then miss its dictionary).
 */
export function arrowFile(table: ColumnarTable): Uint8Array {
  const batch = new RecordBatch(Object.fromEntries(table.columns.map((c) => [c.name, chunkOf(c)])));
  return tableToIPC(new Table([batch]), 'file');
}
