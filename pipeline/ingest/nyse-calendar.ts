/**
 * The NYSE trading calendar of the market files (GSPC, SPY, GLD): a weekday is a trading day unless it is
 * a regular NYSE holiday (the `nyse-holidays` package: New Year, MLK Day, Presidents' Day, Good Friday,
 * Memorial Day, Juneteenth, Independence Day, Labor Day, Thanksgiving, Christmas, with the NYSE's rules
 * for holidays on a weekend) or one of the special closures listed in the catalogue
 * (`NYSE_SPECIAL_CLOSURES`, with their reasons). Checked against the bundled GSPC file from 1990 on.
 */
import { getHolidays } from 'nyse-holidays';
import { NYSE_SPECIAL_CLOSURES } from './catalogue.js';

const SPECIAL = new Map(NYSE_SPECIAL_CLOSURES.map((c) => [c.date, c.reason]));

/** Holidays by ISO date, per year, computed once. */
const holidaysByYear = new Map<number, Map<string, string>>();

function holidaysOf(year: number): Map<string, string> {
  let days = holidaysByYear.get(year);
  if (!days) {
    // `dateString` is formatted in the same (local) time as the date was built, so no time zone shifts it.
    days = new Map(getHolidays(year).map((h) => [h.dateString, h.name]));
    holidaysByYear.set(year, days);
  }
  return days;
}

/** Day of the week of an ISO date: 0 Sunday … 6 Saturday. */
export const weekday = (isoDate: string): number => new Date(`${isoDate}T00:00:00Z`).getUTCDay();

export const isWeekend = (isoDate: string): boolean => {
  const d = weekday(isoDate);
  return d === 0 || d === 6;
};

/** Why the NYSE was closed on `isoDate` (a weekend, a holiday's name, a special closure's reason), or null on a trading day. */
export function nyseClosure(isoDate: string): string | null {
  return isWeekend(isoDate) ? 'a weekend' : nyseWeekdayClosure(isoDate);
}

/** `nyseClosure` of a date known to be a weekday: the holiday's name or the special closure's reason, or null. */
export function nyseWeekdayClosure(isoDate: string): string | null {
  const year = Number(isoDate.slice(0, 4));
  // A holiday observed on 31 December can belong to the next year's list (New Year's Day before 1959).
  const holiday = holidaysOf(year).get(isoDate) ?? holidaysOf(year + 1).get(isoDate);
  if (holiday !== undefined) return holiday;
  return SPECIAL.get(isoDate) ?? null;
}

export const isNyseTradingDay = (isoDate: string): boolean => nyseClosure(isoDate) === null;
