/**
 * How a table fits a terminal's width (./table.ts): which columns keep their room, which are cut and which
 * are hidden. Pure: the cells as the table would print them in, the widths and the hidden columns out.
 *
 * Each column has a priority:
 * - `key`: the first column, and ids (`id`, `*_id`, `*_prefix`): what a reader names a row by (a report's
 *   row labels are declared so);
 * - `keep`: statuses, times, dates and numbers (amounts, counts, probabilities);
 * - `normal`: any other text;
 * - `give-way`: hashes and free text (`*hash*`, `details`, `detail`, `error`, `reason`): what a reader looks
 *   up with `--columns` or `show` rather than scans.
 * Room is taken in this order, each step only while the table is still too wide:
 * 1. giving-way columns are cut to a short prefix (9 characters, or their header's width);
 * 2. giving-way columns are hidden, rightmost first;
 * 3. ISO-8601 instants (`2026-11-27T14:03:05.123Z`) lose their milliseconds (`2026-11-27 14:03:05`, still
 *    UTC), then, when every row is of one year, the year too (`11-27 14:03:05`);
 * 4. normal columns are cut, the widest first, down to 12 characters (or their header's width);
 * 5. normal columns are hidden, rightmost first;
 * 6. kept columns are cut like normal ones (6 characters at least), then hidden, rightmost first;
 * 7. key columns are cut (6 characters at least); they and the last column are never hidden.
 * Numbers, times, statuses and short ids are never cut: a cut one would mislead or say nothing. Room that
 * hidden columns give back goes to the cut ones again. A line still too wide is cut at the width by the table.
 */
import stringWidth from 'string-width';

export type Priority = 'key' | 'keep' | 'normal' | 'give-way';

export interface FitColumn {
  name: string;
  /** The cells as printed, one a row. */
  values: string[];
  priority: Priority;
  /** Never cut (statuses, short ids): a cut one would say nothing. */
  uncut: boolean;
}

export interface FittedColumn extends FitColumn {
  width: number;
  /** The column's place in the input (names may repeat: `90 %` in two groups). */
  index: number;
  /** A column of instants: made compact, never cut. */
  time: boolean;
}

export const GAP = 2;
const MIN_WIDTH = 6;
/** What a cut text column keeps before whole columns are hidden: enough to recognise a name. */
const TEXT_WIDTH = 12;
/** A hash's prefix long enough to tell rows apart: 8 characters and `…`. */
const PREFIX_WIDTH = 9;

const INSTANT = /^(\d{4})-(\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?Z$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const NUMBER = /^[-+]?(\d+(\.\d+)?|\.\d+)(e[-+]?\d+)?( ?%)?$/i;
const GIVE_WAY = /hash|^(details?|error|reason)$/;
const ID = /^id$|_id$|_prefix$/;
const STATUS = /^(status|state|regime|outcome)$|_status$/;

/** Cells that say nothing (`-`, empty) fit any kind. */
const every = (values: readonly string[], re: RegExp): boolean => {
  const said = values.filter((v) => v !== '-' && v !== '');
  return said.length > 0 && said.every((v) => re.test(v));
};

export const isNumeric = (values: readonly string[]): boolean => every(values, NUMBER);
export const isInstant = (values: readonly string[]): boolean => every(values, INSTANT);

/** The default rule (see the module comment), from the column's name, place and cells. */
export function priorityOf(name: string, index: number, values: readonly string[]): Priority {
  if (GIVE_WAY.test(name)) return 'give-way';
  if (index === 0 || ID.test(name)) return 'key';
  if (isNumeric(values) || isInstant(values) || every(values, DATE) || STATUS.test(name)) return 'keep';
  return 'normal';
}

/** Instants without milliseconds, and without the year when all are of one year. */
function compactInstants(values: readonly string[]): string[] {
  const years = new Set(values.map((v) => INSTANT.exec(v)?.[1]).filter((y) => y !== undefined));
  return values.map((v) => {
    const m = INSTANT.exec(v);
    if (!m) return v;
    return years.size === 1 ? `${m[2]} ${m[3]}` : `${m[1]}-${m[2]} ${m[3]}`;
  });
}

const natural = (c: FitColumn): number => Math.max(stringWidth(c.name), ...c.values.map((v) => stringWidth(v)));

/** The columns at their natural widths: a table with no width to fit (a pipe, a file). */
export function unfitted(input: readonly FitColumn[]): { columns: FittedColumn[]; hidden: string[] } {
  return { columns: input.map((c, index) => ({ ...c, width: natural(c), index, time: isInstant(c.values) })), hidden: [] };
}

export function fitColumns(input: readonly FitColumn[], width: number): { columns: FittedColumn[]; hidden: string[] } {
  let columns: FittedColumn[] = input.map((c, index) => ({ ...c, values: [...c.values], width: natural(c), index, time: isInstant(c.values) }));
  const hidden = new Set<number>();
  const total = (): number => columns.reduce((a, c) => a + c.width, 0) + GAP * Math.max(0, columns.length - 1);
  const over = (): boolean => total() > width;

  /** Narrows the widest of `which` one column at a time, down to each one's floor. */
  const shrink = (which: (c: FittedColumn) => boolean, floor: (c: FittedColumn) => number): void => {
    while (over()) {
      let widest: FittedColumn | null = null;
      for (const c of columns) if (which(c) && c.width > floor(c) && (!widest || c.width > widest.width)) widest = c;
      if (!widest) return;
      widest.width -= 1;
    }
  };
  /** Hides the rightmost of `which` until the table fits; never the last column. */
  const hide = (which: (c: FittedColumn) => boolean): void => {
    for (let i = columns.length - 1; i >= 0 && over() && columns.length > 1; i--) {
      if (!which(columns[i]!)) continue;
      hidden.add(columns[i]!.index);
      columns = columns.filter((_, j) => j !== i);
    }
  };
  const headerFloor =
    (base: number) =>
    (c: FittedColumn): number =>
      Math.min(natural(c), Math.max(base, stringWidth(c.name)));

  shrink((c) => c.priority === 'give-way' && !c.uncut, headerFloor(PREFIX_WIDTH));
  hide((c) => c.priority === 'give-way');
  for (const c of columns) {
    if (!over()) break;
    if (!c.time) continue;
    c.values = compactInstants(c.values);
    c.width = natural(c);
  }
  const cuttable = (c: FittedColumn): boolean => !c.uncut && !c.time && !isNumeric(c.values);
  shrink((c) => c.priority === 'normal' && cuttable(c), headerFloor(TEXT_WIDTH));
  hide((c) => c.priority === 'normal');
  shrink((c) => c.priority === 'keep' && cuttable(c), headerFloor(MIN_WIDTH));
  hide((c) => c.priority === 'keep');
  shrink((c) => c.priority === 'key' && cuttable(c), headerFloor(MIN_WIDTH));
  // Hidden columns give back their room: those cut before may take some of it again.
  for (const c of columns) {
    while (c.width < natural(c) && total() < width) c.width += 1;
  }
  return { columns, hidden: input.map((c) => c.name).filter((_, i) => hidden.has(i)) };
}
