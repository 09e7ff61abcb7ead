/**
 * The file formats a report is exported in: CSV (text), Apache Arrow IPC (file format) and Parquet, with
 * each one's media type (the IANA registrations `application/vnd.apache.arrow.file` and
 * `application/vnd.apache.parquet`) and file extension, and the encoding of a typed table in each.
 *
 * The Arrow and Parquet encoders (apache-arrow; DuckDB's native library) are loaded on the first file of their
 * format, not with this module: every server process imports it for the export route, and most never encode
 * a file, so they need not carry DuckDB's library in memory.
 */
import { csvText } from './csv.js';
import type { ColumnarTable } from './table.js';

export const EXPORT_FORMATS = ['csv', 'arrow', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export type BinaryFormat = Exclude<ExportFormat, 'csv'>;

export const MEDIA_TYPE: Record<ExportFormat, string> = {
  csv: 'text/csv',
  arrow: 'application/vnd.apache.arrow.file',
  parquet: 'application/vnd.apache.parquet',
};

export const EXTENSION: Record<ExportFormat, string> = { csv: 'csv', arrow: 'arrow', parquet: 'parquet' };

/** The file's bytes in `format` (CSV as UTF-8). */
export async function encodeTable(format: ExportFormat, table: ColumnarTable): Promise<Uint8Array> {
  if (format === 'csv') return new TextEncoder().encode(csvText(table));
  if (format === 'arrow') return (await import('./arrow.js')).arrowFile(table);
  return (await import('./parquet.js')).parquetFile(table);
}
