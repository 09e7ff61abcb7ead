/**
 * When the regime of a trading day is published: PUBLICATION_TIME on the next NYSE trading day, New York
 * time. The nightly run computes day t from what every publisher had released by then (`./rules.ts`), and
 * publishes that instant as the day's `available_at`. A subscriber can act on it from the next market price:
 * the open of that same trading day (09:30, after 06:30), which is where the published performance trades.
 *
 * 06:30 rather than the evening of t: the Treasury yields of t reach H.15 at 16:15 the next business day, the ICE
 * spreads and FRED's copies of the VIX and the reverse repo the next business day too, so an evening run would
 * have to wait for them (holding the newest day back) or compute the newest day differently from the history.
 * At 06:30 the newest day uses the values of t − 1 for those series, like every day of the history.
 *
 * Pure.
 */
import { nextBusinessDay, onOrNextBusinessDay } from '../../src/core/calendars/business-days.js';
import { zonedInstant } from '../../src/core/calendars/zoned-time.js';

export const PUBLICATION_TIME = '06:30';
export const MARKET_TIME_ZONE = 'America/New_York';
/** The NYSE's opening auction: the first price a subscriber can trade at on a trading day. */
export const MARKET_OPEN_TIME = '09:30';

/** The trading day on which the regime of trading day `isoDate` is published. */
export const publicationDay = (isoDate: string): string => nextBusinessDay('nyse', isoDate);

/** `available_at` of trading day `isoDate`: the instant (ms since the epoch) its regime is published. */
export const availableAt = (isoDate: string): number => zonedInstant(publicationDay(isoDate), PUBLICATION_TIME, MARKET_TIME_ZONE);

/** The trading day of the first NYSE open at or after instant `ms`. */
export function firstOpenAfter(ms: number): string {
  // Twelve hours back is never later than the New York calendar day of `ms`, so stepping forward from there
  // cannot skip the open wanted.
  let d = onOrNextBusinessDay('nyse', new Date(ms - 12 * 3_600_000).toISOString().slice(0, 10));
  while (zonedInstant(d, MARKET_OPEN_TIME, MARKET_TIME_ZONE) < ms) d = nextBusinessDay('nyse', d);
  return d;
}
