/**
 * Tables for terminal output. Plain by default (aligned columns, a header rule, nothing cut, no colour), so
 * a pipe or a file gets every character; with a `TableStyle` from the command's flags and its terminal
 * (./table-flags.ts):
 * - `width`: the table never exceeds it: the widest columns give up room first (down to their header's
 *   width or 6; statuses and short ids not at all), their cells cut with `…`; a line still too long is cut
 *   at the width;
 * - `shortIds`: UUIDs show their first 8 characters (`--full-ids` shows them whole);
 * - `color`: statuses, states and regimes in colour;
 * - `columns`: only the named columns, in that order (an unknown name is a usage error listing the names);
 * - `csv`: RFC 4180 CSV instead (csv-stringify), header first, every value whole and uncoloured.
 */
import chalk from 'chalk';
import cliTruncate from 'cli-truncate';
import { stringify } from 'csv-stringify/sync';
import stringWidth from 'string-width';
import { TradesealError } from '../errors.js';

export type Cell = string | number | null | undefined;

export interface TableStyle {
  width?: number | null;
  color?: boolean;
  shortIds?: boolean;
  columns?: readonly string[] | null;
  csv?: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const GAP = 2;
const MIN_WIDTH = 6;

/** Columns whose values are coloured, and the colour of each value. */
const COLOURED_COLUMNS = new Set(['status', 'state', 'regime', 'verification_status', 'outcome']);
const COLOURS: Readonly<Record<string, 'green' | 'yellow' | 'red' | 'magenta' | 'cyan' | 'gray'>> = {
  PENDING: 'yellow', MATCHED: 'green', DIVERGENT: 'red', ORPHAN: 'magenta', EXPIRED: 'gray', MISMATCH: 'red', SHADOW_HALTED: 'cyan',
  Pending: 'yellow', Matched: 'green', Divergent: 'red', Orphan: 'magenta', Expired: 'gray', Mismatch: 'red',
  Active: 'green', Suspended: 'yellow', Revoked: 'red', live: 'green', revoked: 'red', expired: 'gray',
  expansion: 'green', recovery: 'cyan', tightening: 'yellow', risk_off: 'red',
};

const text = (c: Cell): string => (c === null || c === undefined ? '-' : String(c));

/** The indexes of `columns` in `headers`, in the order asked. */
function selected(headers: readonly string[], columns: readonly string[] | null | undefined): number[] {
  if (!columns || columns.length === 0) return headers.map((_, i) => i);
  const unknown = columns.filter((c) => !headers.includes(c));
  if (unknown.length > 0) {
    throw new TradesealError('usage_error', `unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} for --columns`, { hint: `the columns are ${headers.join(', ')}` });
  }
  return columns.map((c) => headers.indexOf(c));
}

/** Narrows the widest columns until the row fits `width` (or none can give more). */
function fit(widths: number[], floors: number[], width: number): number[] {
  const out = [...widths];
  const total = (): number => out.reduce((a, b) => a + b, 0) + GAP * Math.max(0, out.length - 1);
  while (total() > width) {
    let widest = -1;
    for (let i = 0; i < out.length; i++) if (out[i]! > floors[i]! && (widest < 0 || out[i]! > out[widest]!)) widest = i;
    if (widest < 0) break;
    out[widest]! -= 1;
  }
  return out;
}

export function renderTable(headers: string[], rows: Array<Array<Cell>>, style: TableStyle = {}): string {
  const picked = selected(headers, style.columns);
  const head = picked.map((i) => headers[i]!);
  if (style.csv) {
    return stringify([head, ...rows.map((r) => picked.map((i) => (r[i] === null || r[i] === undefined ? '' : String(r[i]))))], { record_delimiter: 'unix' }).trimEnd();
  }
  const shortened = new Set<number>();
  const cells = rows.map((r) => picked.map((i, c) => {
    const value = text(r[i]);
    if (!style.shortIds || !UUID.test(value)) return value;
    shortened.add(c);
    return value.slice(0, 8);
  }));
  const natural = head.map((h, c) => Math.max(stringWidth(h), ...cells.map((r) => stringWidth(r[c]!))));
  // Statuses and short ids are never cut while other columns can give room: a cut one would say nothing.
  const keep = (c: number): boolean => COLOURED_COLUMNS.has(head[c]!) || shortened.has(c);
  const floors = head.map((h, c) => (keep(c) ? natural[c]! : Math.min(natural[c]!, Math.max(MIN_WIDTH, stringWidth(h)))));
  const widths = style.width ? fit(natural, floors, style.width) : natural;
  const paint = style.color ? new chalk.Instance({ level: 1 }) : null;
  const line = (r: string[], colour: boolean): string => {
    const out = r.map((value, c) => {
      const w = widths[c]!;
      const cut = stringWidth(value) > w ? cliTruncate(value, w) : value;
      const padded = cut + ' '.repeat(Math.max(0, w - stringWidth(cut)));
      const name = COLOURS[value];
      return paint && colour && name && COLOURED_COLUMNS.has(head[c]!) ? paint[name](padded) : padded;
    }).join(' '.repeat(GAP)).trimEnd();
    return style.width && stringWidth(out) > style.width ? cliTruncate(out, style.width) : out;
  };
  const rule = widths.map((w) => '-'.repeat(w));
  return [line(head, false), line(rule, false), ...cells.map((r) => line(r, true))].join('\n');
}
