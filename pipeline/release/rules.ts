/**
 * Release rules: when a value dated `d` becomes public, as its publisher's calendar says. The catalogue
 * (`../ingest/catalogue.ts`) gives every series one rule, with the publisher's own words cited; the pipeline
 * uses a value only from its release instant on (`releasedAt`), so a day's regime is computed from what was out
 * when it is published (`./publication.ts`).
 *
 * - `business_days`: released `lag` business days after `d` (0: on `d`, or the next business day when `d` is
 *   not one), at `time` in `timeZone`. A value dated on a day that is not a business day (ICE's weekend month
 *   ends) with lag 1 is out on the first business day after its date.
 * - `weekly`: released on the first `weekday` after `d` (1 Monday … 5 Friday), the next business day when that
 *   one is a holiday, at `time` in `timeZone`: H.10 publishes each week's daily rates on the Monday after.
 *
 * Pure.
 */
import { addDays } from '../../src/core/dates.js';
import { weekday } from '../../src/core/calendars/nyse.js';
import { addBusinessDays, onOrNextBusinessDay, type BusinessCalendar } from '../../src/core/calendars/business-days.js';
import { zonedInstant } from '../../src/core/calendars/zoned-time.js';

interface RuleBase {
  calendar: BusinessCalendar;
  /** Local release time, `HH:MM`. */
  time: string;
  /** IANA time zone of `time`: the publisher's. */
  timeZone: string;
  /** The publisher's calendar, in its words, with where it says so. */
  source: string;
}

export type ReleaseRule = (RuleBase & { kind: 'business_days'; lag: number }) | (RuleBase & { kind: 'weekly'; weekday: 1 | 2 | 3 | 4 | 5 });

/** The date (in the publisher's calendar) on which a value dated `isoDate` is released. */
export function releaseDate(rule: ReleaseRule, isoDate: string): string {
  if (rule.kind === 'business_days') return addBusinessDays(rule.calendar, isoDate, rule.lag);
  const ahead = ((rule.weekday - weekday(isoDate) + 6) % 7) + 1;
  return onOrNextBusinessDay(rule.calendar, addDays(isoDate, ahead));
}

/** The instant (ms since the epoch) at which a value dated `isoDate` is released. */
export const releasedAt = (rule: ReleaseRule, isoDate: string): number => zonedInstant(releaseDate(rule, isoDate), rule.time, rule.timeZone);

/** The rule in words, for the catalogue's documentation and `pipeline check`. */
export function describeRule(rule: ReleaseRule): string {
  const days = rule.calendar === 'fed' ? 'Federal Reserve business' : 'NYSE trading';
  const when =
    rule.kind === 'weekly'
      ? `on the ${['', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'][rule.weekday]} after the date (the next ${days} day if a holiday)`
      : rule.lag === 0
        ? `on the date (a ${days} day)`
        : `${rule.lag} ${days} day${rule.lag > 1 ? 's' : ''} after the date`;
  return `${when}, ${rule.time} ${rule.timeZone}`;
}
