/**
 * The regime export in a binary format (Apache Arrow IPC or Parquet), for `GET /v1/export/{arrow,parquet}`
 * and `tradeseal signals export --format` alike: the newest `limit` published days, read through the
 * store's cursor, typed (pipeline/reports/export.ts) and encoded. Buffered, not streamed: both formats put
 * their schema or footer around the whole file, and `limit` is already bounded by the caller's tier (the
 * whole published history is a few thousand rows, a few hundred kilobytes in either format).
 */
import type { Sql } from 'postgres';
import { exportTable } from '../../../pipeline/reports/export.js';
import { encodeTable, type BinaryFormat } from '../../../pipeline/reports/columnar/formats.js';
import { exportRows, type ExportRow } from '../store/quant.js';

export async function exportFile(
  sql: Sql,
  limit: number,
  format: BinaryFormat,
  report: (rows: number) => void = () => {},
): Promise<{ bytes: Uint8Array; rows: number }> {
  const rows: ExportRow[] = [];
  await exportRows(sql, limit, (chunk) => {
    rows.push(...chunk);
    report(rows.length);
  });
  return { bytes: await encodeTable(format, exportTable(rows)), rows: rows.length };
}
