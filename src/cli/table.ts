/**
 * Tables for terminal output. Plain by default (aligned columns, numbers right-aligned, a header rule,
 * nothing cut, no colour), so a pipe or a file gets every character; with a `TableStyle` from the command's
 * flags and its terminal (./table-flags.ts):
 * - `width`: the table never exceeds it. Each column has a priority (./table-fit.ts): a listing declares it,
 *   or a rule gives it (the first column and ids are keys; statuses, times and numbers are kept; hashes and
 *   free text give way). Room is taken from the least useful first: giving-way columns are cut to a short
 *   prefix, then hidden; times lose their milliseconds and then their year; other text is cut with `…`;
 *   only then are whole columns hidden, the least useful and rightmost first. One line under the table
 *   names the hidden columns and how to see them (`style.reveal`), wrapped if need be. A line still too long is
 *   cut at the width;
 * - `shortIds`: UUIDs show their first 8 characters (`--full-ids` shows them whole);
 * - `color`: statuses, states and regimes in colour;
 * - `columns`: only the named columns, in that order (an unknown name is a usage error listing the names),
 *   never hidden for want of room;
 * - `csv`: RFC 4180 CSV instead (csv-stringify), header first, every value whole and uncoloured.
 */
import chalk from 'chalk';
import cliTruncate from 'cli-truncate';
import { stringify } from 'csv-stringify/sync';
import stringWidth from 'string-width';
import { TradesealError } from '../core/errors.js';
import { fitColumns, GAP, isNumeric, priorityOf, unfitted, type FitColumn, type FittedColumn, type Priority } from './table-fit.js';
import { wrapLine } from './wrap.js';

export type Cell = string | number | null | undefined;
export type { Priority } from './table-fit.js';

/** A column declared with its priority; a bare name takes the default rule's. */
export interface Column {
  name: string;
  priority?: Priority;
  /**
   * The column that holds this amount's unit (`currency` for `notional`). A terminal table shows them as one
   * cell, `1250000.5 USD`, right-aligned; CSV keeps them two columns, so the amount stays a number.
   */
  unit?: string;
}

export type Header = string | Column;

export interface TableStyle {
  width?: number | null;
  color?: boolean;
  shortIds?: boolean;
  columns?: readonly string[] | null;
  csv?: boolean;
  /** How to see hidden columns, said after their names (`--columns or --wide`); none: only their names. */
  reveal?: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Columns whose values are coloured, and the colour of each value. */
export const COLOURED_COLUMNS = new Set(['status', 'state', 'regime', 'verification_status', 'outcome']);
const COLOURS: Readonly<Record<string, 'green' | 'yellow' | 'red' | 'magenta' | 'cyan' | 'gray'>> = {
  PENDING: 'yellow',
  MATCHED: 'green',
  DIVERGENT: 'red',
  ORPHAN: 'magenta',
  EXPIRED: 'gray',
  MISMATCH: 'red',
  SHADOW_HALTED: 'cyan',
  Pending: 'yellow',
  Matched: 'green',
  Divergent: 'red',
  Orphan: 'magenta',
  Expired: 'gray',
  Mismatch: 'red',
  Active: 'green',
  Suspended: 'yellow',
  Revoked: 'red',
  live: 'green',
  revoked: 'red',
  expired: 'gray',
  expansion: 'green',
  recovery: 'cyan',
  tightening: 'yellow',
  risk_off: 'red',
};

const text = (c: Cell): string => (c === null || c === undefined ? '-' : String(c));
const nameOf = (h: Header): string => (typeof h === 'string' ? h : h.name);

/** The indexes of `columns` in `names`, in the order asked. */
function selected(names: readonly string[], columns: readonly string[] | null | undefined): number[] {
  if (!columns || columns.length === 0) return names.map((_, i) => i);
  const unknown = columns.filter((c) => !names.includes(c));
  if (unknown.length > 0) {
    throw new TradesealError('usage_error', `unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} for --columns`, {
      hint: `the columns are ${names.join(', ')}`,
    });
  }
  return columns.map((c) => names.indexOf(c));
}

/** The line under a table that hid columns: which, and how to see them. */
export function hiddenLine(hidden: readonly string[], reveal: string | null | undefined): string {
  const what = `${hidden.length} column${hidden.length === 1 ? '' : 's'} hidden (${hidden.join(', ')})`;
  return reveal ? `${what}: ${reveal}` : what;
}

export function renderTable(headers: Header[], rows: Array<Array<Cell>>, style: TableStyle = {}): string {
  const names = headers.map(nameOf);
  const picked = selected(names, style.columns);
  const head = picked.map((i) => names[i]!);
  if (style.csv) {
    return stringify([head, ...rows.map((r) => picked.map((i) => (r[i] === null || r[i] === undefined ? '' : String(r[i]))))], {
      record_delimiter: 'unix',
    }).trimEnd();
  }
  // An amount shown with its unit takes the unit's column into its cells.
  const unitOf = (i: number): number => {
    const unit = (headers[i] as Column).unit;
    return unit === undefined ? -1 : picked.indexOf(names.indexOf(unit));
  };
  const glued = new Set(picked.map((i) => unitOf(i)).filter((c) => c >= 0));
  const shortened = new Set<number>();
  const cells = rows.map((r) =>
    picked.map((i, c) => {
      const value = text(r[i]);
      if (!style.shortIds || !UUID.test(value)) return value;
      shortened.add(c);
      return value.slice(0, 8);
    }),
  );
  const columns: Array<FitColumn & { right: boolean }> = picked.flatMap((i, c) => {
    if (glued.has(c)) return [];
    const values = cells.map((r) => r[c]!);
    const declared = headers[i]!;
    const unit = unitOf(i);
    return [
      {
        name: head[c]!,
        values: unit < 0 ? values : values.map((v, r) => (v === '-' ? v : `${v} ${cells[r]![unit]}`)),
        // Named with --columns: the reader asked for it, so it is never hidden for want of room.
        priority: style.columns?.length ? 'key' : typeof declared !== 'string' && declared.priority ? declared.priority : priorityOf(head[c]!, c, values),
        // Statuses and short ids are never cut: a cut one would say nothing; nor an amount with its unit.
        uncut: COLOURED_COLUMNS.has(head[c]!) || shortened.has(c) || (unit >= 0 && isNumeric(values)),
        // A short id can be all digits (`37802934`): it is still an id, aligned left.
        right: !shortened.has(c) && isNumeric(values),
      },
    ];
  });
  const fitted = style.width ? fitColumns(columns, style.width) : unfitted(columns);
  const shown = fitted.columns;
  const right = shown.map((col) => (col as FittedColumn & { right: boolean }).right);
  const paint = style.color ? new chalk.Instance({ level: 1 }) : null;
  const line = (r: string[], colour: boolean): string => {
    const out = r
      .map((value, c) => {
        const w = shown[c]!.width;
        const cut = stringWidth(value) > w ? cliTruncate(value, w) : value;
        const pad = ' '.repeat(Math.max(0, w - stringWidth(cut)));
        const padded = right[c] ? pad + cut : cut + pad;
        const name = COLOURS[value];
        return paint && colour && name && COLOURED_COLUMNS.has(shown[c]!.name) ? paint[name](padded) : padded;
      })
      .join(' '.repeat(GAP))
      .trimEnd();
    return style.width && stringWidth(out) > style.width ? cliTruncate(out, style.width) : out;
  };
  const lines = [
    line(
      shown.map((col) => col.name),
      false,
    ),
    line(
      shown.map((col) => '-'.repeat(col.width)),
      false,
    ),
    ...rows.map((_, r) =>
      line(
        shown.map((col) => col.values[r]!),
        true,
      ),
    ),
  ];
  if (fitted.hidden.length > 0) {
    lines.push(...wrapLine(hiddenLine(fitted.hidden, style.reveal), style.width!));
  }
  return lines.join('\n');
}
