/**
 * Which trading day a night publishes: the day whose publication instant (`available_at`, 06:30 New York on the
 * next trading day, ../../../pipeline/release/publication.ts) has come. At 06:30 on a Tuesday that is Monday; at 06:29 it is
 * still Friday; all through a weekend or a holiday it stays the last trading day before it.
 *
 * Pure.
 */
import { addDays } from '../../core/dates.js';
import { isNyseTradingDay } from '../../core/calendars/nyse.js';
import { availableAt } from '../../../pipeline/release/publication.js';

/** The newest trading day whose regime is due at instant `nowMs`: the latest day d with availableAt(d) ≤ nowMs. */
export function dueDay(nowMs: number): string {
  // The New York calendar day of `nowMs` is never before the UTC day 12 hours earlier; a day that is due is
  // before it (its publication is on the next trading day), so stepping back from there finds the newest.
  let d = new Date(nowMs + 12 * 3_600_000).toISOString().slice(0, 10);
  for (;;) {
    if (isNyseTradingDay(d) && availableAt(d) <= nowMs) return d;
    d = addDays(d, -1);
  }
}

/** The trading days after `after` up to `through` (both ISO dates), oldest first: the days a night owes. */
export function tradingDaysBetween(after: string, through: string): string[] {
  const out: string[] = [];
  for (let d = addDays(after, 1); d <= through; d = addDays(d, 1)) if (isNyseTradingDay(d)) out.push(d);
  return out;
}
