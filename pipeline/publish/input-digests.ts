/**
 * Digests of a run's inputs, so that a later run can tell whether the rows the published days were computed
 * from changed, and name the series and the first changed date.
 *
 * What is digested, per series: the rows usable on or before the last published day (`usable_from <= through`,
 * the point-in-time rule of `ingest/catalogue.ts`), each as its canonical line `date,value\n`: the ISO date and
 * the value as parsed (JavaScript's shortest round-trip text of the double, so `3934000.0` and `3934000` are one
 * value; an empty text for a missing value). The lines are grouped by the calendar year of their date into
 * blocks; a block's digest is the SHA-256 of its text, and the series' digest is the SHA-256 of all its lines.
 *
 * A change is a row usable through that day whose value differs (a revision, a value that became missing or
 * the reverse), a row that is no longer there (removed), or a row that was not there (inserted). A row usable
 * only after that day (a later date, or the Wednesday of a weekly series released on the Thursday after it)
 * is no change: it is what extends the history. A series the record does not name is new and not compared.
 *
 * The blocks' text is kept beside the digests (content-addressed by digest, so a run adds only the blocks that
 * changed: in practice the current year's), which is what lets a later run name the first changed row and its
 * value then and now, not only its year. Everything here is pure: rows in, digests and findings out.
 */
import { createHash } from 'node:crypto';

/** One row of an input series as the run reads it. */
export interface InputRow {
  /** ISO `YYYY-MM-DD`. */
  date: string;
  /** Null: the file's missing-value marker. */
  value: number | null;
  /** The first trading day whose regime may use the value (its release rule: `ingest/catalogue.ts`, `release/usable-from.ts`). */
  usableFrom: string;
  /**
   * A share's open, dividend and split (layout `ohlcv_actions`), which the published performance is computed
   * from as well as the close; absent for the other layouts.
   */
  actions?: { open: number | null; dividend: number; split: number };
}

/** Each series' rows, ascending by date. */
export type InputRows = Readonly<Record<string, readonly InputRow[]>>;

/** What a run records of one series. */
export interface SeriesDigest {
  series: string;
  /** The last published day: the rows usable on or before it are digested. */
  through: string;
  rows: number;
  /** SHA-256 of all the series' lines through `through`. */
  sha256: string;
  /** Calendar year → SHA-256 of that year's lines (a key of `InputDigests.blocks`). */
  years: Record<string, string>;
}

export interface InputDigests {
  series: SeriesDigest[];
  /** Block digest → block text (the year's canonical lines). */
  blocks: Map<string, string>;
}

/** A difference between the recorded rows and the current ones. */
export interface InputChange {
  series: string;
  /** The first changed row's date. */
  date: string;
  kind: 'revised' | 'inserted' | 'removed';
  /** The value's canonical text when recorded / now (null: no such row; '' a missing value). */
  was: string | null;
  now: string | null;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export const canonicalValue = (value: number | null): string => (value === null || Number.isNaN(value) ? '' : String(value));

/**
 * `date,value`, and for a share `date,close open O`, with ` dividend D` on an ex-dividend day and ` split K` on a
 * split: a revised open or a dividend recorded late is a change of the day like a revised close.
 */
export function canonicalLine(row: InputRow): string {
  const a = row.actions;
  if (!a) return `${row.date},${canonicalValue(row.value)}\n`;
  const dividend = a.dividend === 0 ? '' : ` dividend ${canonicalValue(a.dividend)}`;
  const split = a.split === 1 ? '' : ` split ${canonicalValue(a.split)}`;
  return `${row.date},${canonicalValue(row.value)} open ${canonicalValue(a.open)}${dividend}${split}\n`;
}

/** The canonical lines of the rows usable through `through`, by calendar year, in date order. */
function yearBlocks(rows: readonly InputRow[], through: string): Map<string, string> {
  const years = new Map<string, string[]>();
  for (const row of rows) {
    if (row.usableFrom > through) continue;
    const year = row.date.slice(0, 4);
    let lines = years.get(year);
    if (!lines) years.set(year, (lines = []));
    lines.push(canonicalLine(row));
  }
  return new Map([...years].sort(([a], [b]) => (a < b ? -1 : 1)).map(([y, lines]) => [y, lines.join('')]));
}

/** The digests of every series' rows usable on or before `through`, and the blocks they name. */
export function digestInputs(inputs: InputRows, through: string): InputDigests {
  const blocks = new Map<string, string>();
  const series: SeriesDigest[] = [];
  for (const id of Object.keys(inputs).sort()) {
    const byYear = yearBlocks(inputs[id] ?? [], through);
    const years: Record<string, string> = {};
    const all = createHash('sha256');
    let rows = 0;
    for (const [year, text] of byYear) {
      const digest = sha256(text);
      years[year] = digest;
      blocks.set(digest, text);
      all.update(text);
      rows += countLines(text);
    }
    series.push({ series: id, through, rows, sha256: all.digest('hex'), years });
  }
  return { series, blocks };
}

const countLines = (text: string): number => {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
};

/** The recorded blocks whose year reads differently now: the only ones a comparison needs the text of. */
export function differingBlocks(recorded: readonly SeriesDigest[], now: InputDigests): string[] {
  const needed = new Set<string>();
  const current = new Map(now.series.map((s) => [s.series, s]));
  for (const r of recorded) {
    const c = current.get(r.series);
    if (c && c.sha256 === r.sha256) continue;
    for (const [year, digest] of Object.entries(r.years)) if (c?.years[year] !== digest) needed.add(digest);
  }
  return [...needed];
}

const parseLine = (line: string): { date: string; value: string } => ({ date: line.slice(0, 10), value: line.slice(11) });

/** The first difference between two blocks' lines (each in date order), or null when they are the same. */
export function firstDifference(series: string, was: string, now: string): InputChange | null {
  const a = was
    .split('\n')
    .filter((l) => l !== '')
    .map(parseLine);
  const b = now
    .split('\n')
    .filter((l) => l !== '')
    .map(parseLine);
  for (let i = 0, j = 0; i < a.length || j < b.length;) {
    const x = a[i];
    const y = b[j];
    if (x && y && x.date === y.date) {
      if (x.value !== y.value) return { series, date: x.date, kind: 'revised', was: x.value, now: y.value };
      i++;
      j++;
    } else if (x && (!y || x.date < y.date)) {
      return { series, date: x.date, kind: 'removed', was: x.value, now: null };
    } else {
      return { series, date: y!.date, kind: 'inserted', was: null, now: y!.value };
    }
  }
  return null;
}

/**
 * Compares the recorded digests with the current rows (already digested through the same day): for every
 * recorded series whose rows changed, its first changed row, earliest first. `blocks` must hold the text of
 * every block `differingBlocks` named; a missing one is an error (the record is incomplete).
 */
export function inputChanges(recorded: readonly SeriesDigest[], now: InputDigests, blocks: ReadonlyMap<string, string>): InputChange[] {
  const current = new Map(now.series.map((s) => [s.series, s]));
  const changes: InputChange[] = [];
  for (const r of recorded) {
    const c = current.get(r.series);
    if (c && c.sha256 === r.sha256) continue;
    const years = [...new Set([...Object.keys(r.years), ...Object.keys(c?.years ?? {})])].sort();
    for (const year of years) {
      const before = r.years[year];
      const after = c?.years[year];
      if (before === after) continue;
      const was = before === undefined ? '' : blocks.get(before);
      if (was === undefined) throw new Error(`the recorded input block ${before} of ${r.series} (${year}) is missing from the store`);
      const change = firstDifference(r.series, was, after === undefined ? '' : (now.blocks.get(after) ?? ''));
      if (change) {
        changes.push(change);
        break;
      }
    }
  }
  return changes.sort((x, y) => (x.date < y.date ? -1 : x.date > y.date ? 1 : x.series < y.series ? -1 : 1));
}

const shown = (v: string | null): string => (v === '' ? 'missing' : String(v));

/** One phrase per change: `2019-05-01 (revised: 3934000 then, 19670000 now)`. */
export function describeChange(c: InputChange): string {
  const what =
    c.kind === 'revised'
      ? `revised: ${shown(c.was)} then, ${shown(c.now)} now`
      : c.kind === 'removed'
        ? `removed: it was ${shown(c.was)}`
        : `inserted: ${shown(c.now)}`;
  return `${c.date} (${what})`;
}

/** The sentence for the operator: the first change, then the other changed series' first rows. */
export function describeChanges(changes: readonly InputChange[], through: string): string {
  const [first, ...rest] = changes;
  if (!first) return `the inputs up to ${through} are as they were published`;
  const others = rest.length > 0 ? `; ${rest.map((c) => `${c.series} changed too, first on ${describeChange(c)}`).join('; ')}` : '';
  return `the input ${first.series} changed on or before the last published day ${through}: its first changed row is ${describeChange(first)}${others}`;
}
