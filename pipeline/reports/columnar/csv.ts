/**
 * A typed table (./table.ts) as CSV text, written as the regime export is (../export.ts): a header row,
 * RFC 4180, `\n` line ends, numbers in JavaScript's shortest round-trip form (the file reloads to the same
 * doubles), dates and instants as ISO-8601 text, a null as an empty cell.
 */
import { stringify } from 'csv-stringify/sync';
import type { ColumnarTable } from './table.js';

export function csvText(table: ColumnarTable): string {
  const rows: unknown[][] = [table.columns.map((c) => c.name)];
  for (let r = 0; r < table.rows; r++) rows.push(table.columns.map((c) => c.values[r] ?? ''));
  return stringify(rows, { cast: { number: (n) => String(n) }, record_delimiter: 'unix' });
}
