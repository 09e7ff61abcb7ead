/**
 * When a night gives up: the first `HH:MM` (`PIPELINE_DEADLINE`, in `PIPELINE_TIMEZONE`) after the night
 * started. A night started at 06:30 with the default 09:00 tries until 09:00 that morning; one started after 09:00
 * (by hand, or a cron line set later) tries until 09:00 the next morning, so it is never given no time at all.
 *
 * Pure.
 */
import { addDays } from '../../core/dates.js';
import { zonedInstant } from '../../core/calendars/zoned-time.js';

/** The calendar day of instant `ms` in `timeZone`. */
export const localDay = (ms: number, timeZone: string): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(ms));

/** The first instant at local time `time` (HH:MM, 03:00-23:59) in `timeZone` strictly after `startedMs`. */
export function deadlineAfter(startedMs: number, time: string, timeZone: string): number {
  const day = localDay(startedMs, timeZone);
  const sameDay = zonedInstant(day, time, timeZone);
  return sameDay > startedMs ? sameDay : zonedInstant(addDays(day, 1), time, timeZone);
}
