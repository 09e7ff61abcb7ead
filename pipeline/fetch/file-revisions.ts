/**
 * The revisions between two texts of one series' file, by date and field: a FRED refresh replaces the rows from
 * the first date it fetched with FRED's, so what FRED revised, removed or inserted inside the file's old range is
 * found by comparing the file before and after, content against content. A value written differently but equal
 * as a number (`3934000.0`, `3934000`) is no revision. Rows after the old last date are new, not revisions.
 *
 * Pure.
 */
import { LAYOUTS, type SeriesSpec } from '../ingest/catalogue.js';
import type { Revision } from './fetch-record.js';

const rowsOf = (text: string): Map<string, string[]> =>
  new Map(
    text
      .split('\n')
      .filter((l, i) => i > 0 && l !== '')
      .map((l) => [l.slice(0, 10), l.split(',')]),
  );

const same = (a: string, b: string): boolean => a === b || (a !== '' && b !== '' && Number(a) === Number(b));

/** The revisions from `before` to `after` (both the series' layout), oldest first; and the rows added after `before`'s last date. */
export function fileRevisions(spec: SeriesSpec, before: string, after: string): { revisions: Revision[]; added: number } {
  const columns = LAYOUTS[spec.layout].header(spec.id);
  const old = rowsOf(before);
  const now = rowsOf(after);
  const last = [...old.keys()].at(-1) ?? null;
  const revisions: Revision[] = [];
  let added = 0;
  for (const [date, fields] of now) {
    const was = old.get(date);
    if (was === undefined) {
      if (last === null || date > last) added++;
      else revisions.push({ date, field: 'row', was: null, now: fields.join(',') });
      continue;
    }
    columns.forEach((c, i) => {
      if (i > 0 && !same(was[i] ?? '', fields[i] ?? '')) revisions.push({ date, field: c, was: was[i] ?? '', now: fields[i] ?? '' });
    });
  }
  for (const [date, fields] of old) if (!now.has(date)) revisions.push({ date, field: 'row', was: fields.join(','), now: null });
  return { revisions: revisions.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0)), added };
}
