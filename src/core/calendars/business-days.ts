/**
 * The two business-day calendars release rules count in:
 *
 * - **Federal Reserve** business days (H.4.1, H.10, H.15 and the FRED postings of Fed, FRBNY and ICE data): weekdays
 *   that are not a federal holiday as the Federal Reserve Banks observe them. The holidays are those of
 *   5 U.S.C. 6103 (the `@18f/us-federal-holidays` package); a holiday on a Sunday is observed on the Monday, but
 *   one on a Saturday is not moved: "For holidays falling on Saturday, Federal Reserve Banks and Branches will
 *   be open the preceding Friday" (federalreserve.gov, "Federal Reserve Holidays").
 * - **NYSE** trading days (market closes and opens): `./nyse.ts`.
 *
 * Pure; ISO `YYYY-MM-DD` dates in, out.
 */
import federalHolidays from '@18f/us-federal-holidays';
import { addDays } from '../dates.js';
import { isNyseTradingDay, isWeekend, nyseWeekdayClosure } from './nyse.js';

export type BusinessCalendar = 'fed' | 'nyse';

const fedHolidaysByYear = new Map<number, Set<string>>();

function fedHolidays(year: number): Set<string> {
  let days = fedHolidaysByYear.get(year);
  if (!days) {
    days = new Set(federalHolidays.allForYear(year, { shiftSaturdayHolidays: false, shiftSundayHolidays: true }).map((h) => h.dateString));
    fedHolidaysByYear.set(year, days);
  }
  return days;
}

/** Whether the Federal Reserve Banks are open on `isoDate`. */
export function isFedBusinessDay(isoDate: string): boolean {
  return !isWeekend(isoDate) && !fedHolidays(Number(isoDate.slice(0, 4))).has(isoDate);
}

export const isBusinessDay = (calendar: BusinessCalendar, isoDate: string): boolean =>
  calendar === 'fed' ? isFedBusinessDay(isoDate) : isNyseTradingDay(isoDate);

/** Whether a date known to be a weekday is a business day (`isBusinessDay` without its weekend test). */
export const isBusinessWeekday = (calendar: BusinessCalendar, isoDate: string): boolean =>
  calendar === 'fed' ? !fedHolidays(Number(isoDate.slice(0, 4))).has(isoDate) : nyseWeekdayClosure(isoDate) === null;

const nextDays: Record<BusinessCalendar, Map<string, string>> = { fed: new Map(), nyse: new Map() };

/** The first business day strictly after `isoDate` (memoised: release rules ask for the same days over and over). */
export function nextBusinessDay(calendar: BusinessCalendar, isoDate: string): string {
  let next = nextDays[calendar].get(isoDate);
  if (next === undefined) {
    next = addDays(isoDate, 1);
    while (!isBusinessDay(calendar, next)) next = addDays(next, 1);
    nextDays[calendar].set(isoDate, next);
  }
  return next;
}

/** `isoDate` itself when it is a business day, else the next one. */
export function onOrNextBusinessDay(calendar: BusinessCalendar, isoDate: string): string {
  return isBusinessDay(calendar, isoDate) ? isoDate : nextBusinessDay(calendar, isoDate);
}

/** The `n`-th business day after `isoDate` (n ≥ 0; 0 is `isoDate` itself, or the next business day if it is not one). */
export function addBusinessDays(calendar: BusinessCalendar, isoDate: string, n: number): string {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`a business-day lag is a whole number ≥ 0, got ${n}`);
  let d = n === 0 ? onOrNextBusinessDay(calendar, isoDate) : isoDate;
  for (let i = 0; i < n; i++) d = nextBusinessDay(calendar, d);
  return d;
}
