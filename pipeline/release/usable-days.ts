/**
 * `usableFrom` (./usable-from.ts) for many dates at once, in whole days: the loader asks for every row of every
 * file (about 110,000, 70,000 distinct dates per rule), and the date-string arithmetic of the one-date form
 * costs microseconds a call on a fresh process. Here each date's answer is a few lookups in the tables of the
 * business-day calendars (./day-tables.ts). The same rule, step for step, as `usableFrom`'s path for a rule
 * in the publication's time zone (its local time compared with 06:30); a rule in another zone goes date by
 * date through `usableFrom` itself. usable-days.test.ts checks the two against each other on every date of 1990–2030.
 *
 * Dates are day numbers (./day-tables.ts). Pure, apart from the tables a process keeps.
 */
import { calendarTable, dayOfIso, isoOfDay, weekdayOfDay, type CalendarTable } from './day-tables.js';
import { MARKET_TIME_ZONE, PUBLICATION_TIME } from './publication.js';
import type { ReleaseRule } from './rules.js';
import { usableFrom } from './usable-from.js';

/** Days before the first date and after the last that a rule may reach (a week's lag, a long closure, a holiday). */
const MARGIN_BEFORE = 30;
const MARGIN_AFTER = 60;

const outOfRange = (): never => {
  throw new RangeError('a release day fell outside the tabulated calendar (a closure longer than the margin)');
};

/**
 * The first trading day whose regime may use a value dated on each of `days` under `rule`, as day numbers:
 * `usableFrom(rule, isoOfDay(d))` for each d, computed from tables of the calendars.
 */
export function usableFromDays(rule: ReleaseRule, days: ArrayLike<number>): Int32Array {
  const out = new Int32Array(days.length);
  if (days.length === 0) return out;
  if (rule.timeZone !== MARKET_TIME_ZONE) {
    for (let n = 0; n < days.length; n++) out[n] = dayOfIso(usableFrom(rule, isoOfDay(days[n]!)));
    return out;
  }
  let lo = Infinity;
  let hi = -Infinity;
  for (let n = 0; n < days.length; n++) {
    lo = Math.min(lo, days[n]!);
    hi = Math.max(hi, days[n]!);
  }
  const own = calendarTable(rule.calendar, lo - MARGIN_BEFORE, hi + MARGIN_AFTER);
  const nyse = calendarTable('nyse', lo - MARGIN_BEFORE, hi + MARGIN_AFTER);
  // Indexes into the rule's own table, then into the NYSE's (which may start elsewhere once it has grown).
  const first = nyse.first;
  const step = (t: CalendarTable, table: Int32Array, i: number): number => (i >= 0 && i < t.length && table[i]! >= 0 ? table[i]! : outOfRange());
  const onOrNext = (t: CalendarTable, i: number): number => (i >= 0 && i < t.length && t.business[i] ? i : step(t, t.next, i));
  const releasedLate = rule.time > PUBLICATION_TIME;
  for (let n = 0; n < days.length; n++) {
    const i = days[n]! - own.first;
    let release: number;
    if (rule.kind === 'business_days') {
      release = rule.lag === 0 ? onOrNext(own, i) : i;
      for (let k = 0; k < rule.lag; k++) release = step(own, own.next, release);
    } else {
      release = onOrNext(own, i + ((rule.weekday - weekdayOfDay(days[n]!) + 6) % 7) + 1);
    }
    // Released on day R at local time T: published first on R's 06:30 if T is not later, else the next trading day's.
    const r = release + own.first - first;
    const publication = releasedLate ? step(nyse, nyse.next, r) : onOrNext(nyse, r);
    out[n] = first + step(nyse, nyse.previous, publication);
  }
  return out;
}
