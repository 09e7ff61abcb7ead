/**
 * The file formats a report is exported in: CSV (text), Apache Arrow IPC (file format) and Parquet, with
 * each one's media type (the IANA registrations `application/vnd.apache.arrow.file` and
 * `application/vnd.apache.parquet`) and file extension, and the encoding of a typed table in each.
 */
import { arrowFile } from './arrow.js';
import { csvText } from './csv.js';
import { parquetFile } from './parquet.js';
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
  return format === 'arrow' ? arrowFile(table) : parquetFile(table);
}
