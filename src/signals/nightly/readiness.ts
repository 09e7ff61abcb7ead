/**
 * Whether the data of a due day are complete: for each series, the row its release rule says is out by the
 * day's publication must be in its file. The rule is the calendar's end rule (../../../pipeline/calendar.ts) applied to every
 * series, not only those that bind the end: a series is current for day D while the row after its last one is
 * not yet usable on D (`usableFrom(release, nextRowDate(last)) > D`); the members of a start group count together
 * (the dollar: DTWEXB ended in 2019, DTWEXBGS goes on).
 *
 * Stricter than the calendar on purpose. A day published while SPY's, GLD's or T10Y2Y's row is missing would be
 * published without it; when the row came the next night it would change the inputs of a published day, and the
 * run after that would refuse to extend the history (../../../pipeline/publish/input-digests.ts). So a night publishes only
 * when every series has every value that should be out, and otherwise waits, then fails closed.
 *
 * Pure: the catalogue, each file's last row and the due day in; each late series, with the row it lacks and
 * when that row was released, out.
 */
import { nextRowDate } from '../../../pipeline/calendar.js';
import { CATALOGUE, type SeriesSpec } from '../../../pipeline/ingest/catalogue.js';
import { releasedAt } from '../../../pipeline/release/rules.js';
import { usableFrom } from '../../../pipeline/release/usable-from.js';
import type { LateSeries } from './late-series.js';

export type { LateSeries };

export interface Readiness {
  due: string;
  ready: boolean;
  /** The series (by start group: a group is late only when every member is) that lack a row out by the day's publication. */
  late: LateSeries[];
}

/** Whether `spec`'s file, whose last row is `last`, holds every row usable on day `due`. */
export function isCurrent(spec: SeriesSpec, last: string | null, due: string): boolean {
  return last !== null && usableFrom(spec.release, nextRowDate(spec, last)) > due;
}

/** The readiness of day `due`, given each series' last row by id (a series absent from `lastRows` has no file). */
export function readiness(due: string, lastRows: ReadonlyMap<string, string | null>, catalogue: readonly SeriesSpec[] = CATALOGUE): Readiness {
  const groups = new Map<string, SeriesSpec[]>();
  for (const spec of catalogue) {
    const group = spec.startGroup ?? spec.id;
    groups.set(group, [...(groups.get(group) ?? []), spec]);
  }
  const late: LateSeries[] = [];
  for (const members of groups.values()) {
    if (members.some((spec) => isCurrent(spec, lastRows.get(spec.id) ?? null, due))) continue;
    // Every member is late: name the one that went furthest (the group's live member).
    const newest = [...members].sort((a, b) => ((lastRows.get(b.id) ?? '') < (lastRows.get(a.id) ?? '') ? -1 : 1))[0]!;
    const last = lastRows.get(newest.id) ?? null;
    const needed = last === null ? null : nextRowDate(newest, last);
    late.push({
      series: newest.id,
      file: newest.file,
      last_row: last,
      needed_row: needed,
      released_at: needed === null ? null : new Date(releasedAt(newest.release, needed)).toISOString(),
      rule: newest.release.source,
    });
  }
  return { due, ready: late.length === 0, late };
}

/** `DGS10.csv lacks the row of 2025-06-11 (released 2025-06-12T20:15:00.000Z; its last row is 2025-06-10)`. */
export function describeLate(l: LateSeries): string {
  if (l.needed_row === null) return `${l.file} has no row`;
  return `${l.file} lacks the row of ${l.needed_row} (released ${l.released_at}; its last row is ${l.last_row})`;
}
