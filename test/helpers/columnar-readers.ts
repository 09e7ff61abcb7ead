/**
 * Reading the binary exports back with readers other than the writers: Arrow IPC files with
 * @uwdata/flechette (not apache-arrow, which writes them), Parquet with hyparquet (the reader of its project, a
 * package apart from hyparquet-writer, which writes them; its decoding is its own). Each gives the columns' names and types as the file declares them, and the rows with
 * dates as `YYYY-MM-DD`, timestamps as ISO-8601 UTC instants and nulls as null, so they compare with the
 * CSV export's text row by row. `csvRows` reads that CSV the same way (numbers parsed, empty as null).
 */
import { DateUnit, Precision, TimeUnit, Type, tableFromIPC } from '@uwdata/flechette';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';

export type Cell = string | number | null;
export type Row = Record<string, Cell>;

export interface ReadBack {
  /** Each column as `name: type`, the type in the file's own terms. */
  columns: string[];
  rows: Row[];
}

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** An Arrow IPC file's schema and rows, read by flechette. */
export function readArrow(bytes: Uint8Array): ReadBack {
  const table = tableFromIPC(bytes);
  const describe = (type: any): string => {
    switch (type.typeId) {
      case Type.Date:
        return type.unit === DateUnit.DAY ? 'date32' : 'date64';
      case Type.Dictionary:
        return `dictionary<${describe(type.dictionary)}>`;
      case Type.Utf8:
        return 'utf8';
      case Type.Float:
        return type.precision === Precision.DOUBLE ? 'float64' : 'float';
      case Type.Int:
        return `int${type.bitWidth}`;
      case Type.Timestamp:
        return `timestamp[${type.unit === TimeUnit.MILLISECOND ? 'ms' : type.unit}, ${type.timezone}]`;
      default:
        return `type ${type.typeId}`;
    }
  };
  const fields = table.schema.fields;
  const rows = table.toArray().map((r: Record<string, unknown>) =>
    Object.fromEntries(
      fields.map((f) => {
        const v = r[f.name];
        if (v === null || v === undefined) return [f.name, null];
        if (f.type.typeId === Type.Date) return [f.name, day(Number(v))];
        if (f.type.typeId === Type.Timestamp) return [f.name, new Date(Number(v)).toISOString()];
        return [f.name, v as Cell];
      }),
    ),
  );
  return { columns: fields.map((f) => `${f.name}: ${describe(f.type)}`), rows };
}

/** A Parquet file's schema and rows, read by hyparquet. */
export async function readParquet(bytes: Uint8Array): Promise<ReadBack> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const leaves = parquetMetadata(file).schema.slice(1);
  const describe = (e: (typeof leaves)[number]): string => {
    const logical = e.logical_type as { type: string; unit?: string; isAdjustedToUTC?: boolean } | undefined;
    if (logical?.type === 'TIMESTAMP') return `${e.type} TIMESTAMP(${logical.unit}, ${logical.isAdjustedToUTC ? 'UTC' : 'local'})`;
    return [e.type, logical?.type ?? e.converted_type].filter(Boolean).join(' ');
  };
  const rows = (await parquetReadObjects({ file })).map((r) =>
    Object.fromEntries(
      leaves.map((e) => {
        const v = r[e.name];
        const logical = (e.logical_type as { type: string } | undefined)?.type ?? e.converted_type;
        if (v === null || v === undefined) return [e.name, null];
        if (logical === 'DATE') return [e.name, (v as Date).toISOString().slice(0, 10)];
        if (logical === 'TIMESTAMP' || logical === 'TIMESTAMP_MICROS') return [e.name, (v as Date).toISOString()];
        return [e.name, v as Cell];
      }),
    ),
  );
  return { columns: leaves.map((e) => `${e.name}: ${describe(e)}`), rows };
}

/** The CSV export as rows: numbers parsed (the export writes them in round-trip form), empty cells null. */
export function csvRows(text: string, numeric: readonly string[]): Row[] {
  const [head, ...lines] = text.trim().split('\n');
  const names = head!.split(',');
  return lines.map((line) =>
    Object.fromEntries(
      line.split(',').map((v, i) => {
        const name = names[i]!;
        if (v === '') return [name, null];
        return [name, numeric.includes(name) ? Number(v) : v];
      }),
    ),
  );
}
