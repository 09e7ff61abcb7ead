/**
 * From a release rule to the pipeline's day arithmetic: `usable_from` of a value is the first trading day
 * whose regime may use it, the first trading day t with `available_at(t)` at or after the value's release.
 * Every stage then keeps its plain date comparisons (a value is used on day t when `usable_from <= t`), and
 * a run "as of t" sees exactly what was out when day t was published.
 *
 * The loader asks for every row of every file (about 80,000), so the common case is done without instants: a
 * rule in the publication's own time zone is compared by its local time of day (`HH:MM` strings order as
 * times). A rule in another zone goes through the instants. Results are memoised per rule and date.
 */
import { nextBusinessDay, onOrNextBusinessDay } from '../../src/core/calendars/business-days.js';
import { MARKET_TIME_ZONE, PUBLICATION_TIME } from './publication.js';
import { releaseDate, releasedAt, type ReleaseRule } from './rules.js';
import { zonedInstant } from '../../src/core/calendars/zoned-time.js';

const previous = new Map<string, string>();

/** The NYSE trading day before `isoDate`. */
function previousTradingDay(isoDate: string): string {
  let out = previous.get(isoDate);
  if (out === undefined) {
    let d = isoDate;
    do d = new Date(Date.parse(`${d}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    while (onOrNextBusinessDay('nyse', d) !== d);
    previous.set(isoDate, (out = d));
  }
  return out;
}

/** The first trading day whose publication instant is at or after `ms`. */
export function firstDayPublishedAfter(ms: number): string {
  // The publication day p is the first NYSE day whose 06:30 New York is ≥ ms; the day published then is the
  // trading day before p. Twelve hours back is never later than the New York calendar day of `ms`.
  let p = onOrNextBusinessDay('nyse', new Date(ms - 12 * 3_600_000).toISOString().slice(0, 10));
  while (zonedInstant(p, PUBLICATION_TIME, MARKET_TIME_ZONE) < ms) p = nextBusinessDay('nyse', p);
  return previousTradingDay(p);
}

const cache = new WeakMap<ReleaseRule, Map<string, string>>();

/** The first trading day whose regime may use a value dated `isoDate` under `rule` (ISO date). */
export function usableFrom(rule: ReleaseRule, isoDate: string): string {
  let byDate = cache.get(rule);
  if (!byDate) cache.set(rule, (byDate = new Map()));
  let out = byDate.get(isoDate);
  if (out === undefined) {
    if (rule.timeZone === MARKET_TIME_ZONE) {
      // Released on day R at local time T: published first on R's 06:30 if T is not later, else the next day's.
      const day = releaseDate(rule, isoDate);
      const publication = rule.time <= PUBLICATION_TIME ? onOrNextBusinessDay('nyse', day) : nextBusinessDay('nyse', day);
      out = previousTradingDay(publication);
    } else {
      out = firstDayPublishedAfter(releasedAt(rule, isoDate));
    }
    byDate.set(isoDate, out);
  }
  return out;
}
