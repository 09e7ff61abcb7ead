/**
 * Merging what a market-data source served into a market file, row by row, comparing content: the file keeps
 * its rows before the first bar served; each bar of a day the file has is compared with the file's row field
 * by field: a field where they agree keeps the file's text, byte for byte; a field where they differ takes the
 * source's value and is a revision (recorded in FETCHED.json, shown by `pipeline fetch`, and, for a published day's
 * close, open, dividend or split, refused by the next run, which names the series and the date); bars after the
 * file's last row are added. A day of the file that the source no longer serves within what it sent is kept
 * and recorded as a revision of field `row`: a source's gap never deletes history.
 *
 * Agreement of prices and dividends is to a millionth of the amount: vendors send them in binary floating point
 * (Yahoo's prices are widened from single precision, 594.280029296875 for 594.28; a dividend of 1.761 may come as
 * 1.7610000000000001), so the same amount can come as two texts; a millionth is far below a cent on any price in
 * the files (a cent is 1.7e-5 of SPY's 600) and a hundredth of a cent on a dividend, so a real revision is never
 * taken for noise. Volumes are compared exactly, split ratios to a billionth.
 *
 * Pure: the file's text and the bars in, the new text and the revisions out.
 */
import { LAYOUTS, type SeriesSpec } from '../ingest/catalogue.js';
import type { DailyBar } from '../sources/market-source.js';
import type { Revision } from './fetch-record.js';

/** Two prices are the same when they differ by at most this fraction of the larger. */
export const PRICE_AGREEMENT = 1e-6;

const AMOUNT_FIELDS = new Set(['open', 'high', 'low', 'close', 'dividend']);

export interface MergedBars {
  /** The file's new text (header and rows, one per line, a final newline). */
  text: string;
  rows: number;
  /** Rows that the file did not have. */
  added: number;
  revisions: Revision[];
}

/** The fields of a bar as the layout's columns, in order, as text. */
function barFields(spec: SeriesSpec, bar: DailyBar): string[] {
  const fields = [bar.date, String(bar.open), String(bar.high), String(bar.low), String(bar.close), String(bar.volume)];
  if (spec.layout === 'ohlcv_actions') fields.push(String(bar.dividend), String(bar.split));
  return fields;
}

function sameField(column: string, was: string, now: string): boolean {
  if (was === now) return true;
  const a = Number(was);
  const b = Number(now);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  if (AMOUNT_FIELDS.has(column)) return Math.abs(a - b) <= PRICE_AGREEMENT * Math.max(Math.abs(a), Math.abs(b));
  if (column === 'split') return Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
  return a === b;
}

/** Merges `bars` (oldest first, already cut to what was released) into `fileText` (the market file as it is). */
export function mergeBars(spec: SeriesSpec, fileText: string, bars: readonly DailyBar[]): MergedBars {
  const columns = LAYOUTS[spec.layout].header(spec.id);
  const lines = fileText.split('\n').filter((l, i) => i > 0 && l !== '');
  const first = bars[0]?.date;
  const kept = first === undefined ? lines : lines.filter((l) => l.slice(0, 10) < first);
  const overlap = new Map(lines.filter((l) => first !== undefined && l.slice(0, 10) >= first).map((l) => [l.slice(0, 10), l]));
  const lastDate = lines.at(-1)?.slice(0, 10) ?? null;
  const revisions: Revision[] = [];
  const out = [...kept];
  let added = 0;
  for (const bar of bars) {
    const fields = barFields(spec, bar);
    const held = overlap.get(bar.date);
    overlap.delete(bar.date);
    if (held === undefined) {
      out.push(fields.join(','));
      if (lastDate === null || bar.date > lastDate) added++;
      else revisions.push({ date: bar.date, field: 'row', was: null, now: fields.join(',') });
      continue;
    }
    // Field by field: what agrees keeps the file's text, what differs takes the source's.
    const old = held.split(',');
    const merged = columns.map((c, i) => {
      const was = old[i] ?? '';
      const now = fields[i] ?? '';
      if (i === 0 || sameField(c, was, now)) return was;
      revisions.push({ date: bar.date, field: c, was, now });
      return now;
    });
    out.push(merged.join(','));
  }
  // Days the source did not serve again within its answer: kept, and said.
  for (const [date, line] of overlap) {
    revisions.push({ date, field: 'row', was: line, now: null });
    out.push(line);
  }
  out.sort((a, b) => (a.slice(0, 10) < b.slice(0, 10) ? -1 : a.slice(0, 10) > b.slice(0, 10) ? 1 : 0));
  revisions.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return { text: `${columns.join(',')}\n${out.map((l) => `${l}\n`).join('')}`, rows: out.length, added, revisions };
}
