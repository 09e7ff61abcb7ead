/**
 * The NYSE trading calendar of the market files (GSPC, SPY, GLD): a weekday is a trading day unless it is
 * a regular NYSE holiday (the `nyse-holidays` package: New Year, MLK Day, Presidents' Day, Good Friday,
 * Memorial Day, Juneteenth, Independence Day, Labor Day, Thanksgiving, Christmas, with the NYSE's rules
 * for holidays on a weekend) or one of the special closures listed in the catalogue
 * (`NYSE_SPECIAL_CLOSURES`, with their reasons). Checked against the bundled GSPC file from 1990 on.
 */
import { getHolidays } from 'nyse-holidays';

/**
 * The NYSE checks of the market files start here: older history had Saturday sessions (until 1952) and
 * many one-off closures (the 1968 paperwork crisis, among others) that no holiday rule covers.
 */
export const NYSE_CHECKED_FROM = '1990-01-02';

/**
 * Days the NYSE closed since NYSE_CHECKED_FROM beyond its regular holidays (those come from the
 * `nyse-holidays` package), each with its reason. On these days a market file has no row.
 */
export const NYSE_SPECIAL_CLOSURES: ReadonlyArray<{ date: string; reason: string }> = [
  { date: '1994-04-27', reason: 'national day of mourning for President Nixon' },
  { date: '2001-09-11', reason: 'the September 11 attacks' },
  { date: '2001-09-12', reason: 'the September 11 attacks' },
  { date: '2001-09-13', reason: 'the September 11 attacks' },
  { date: '2001-09-14', reason: 'the September 11 attacks' },
  { date: '2004-06-11', reason: 'national day of mourning for President Reagan' },
  { date: '2007-01-02', reason: 'national day of mourning for President Ford' },
  { date: '2012-10-29', reason: 'Hurricane Sandy' },
  { date: '2012-10-30', reason: 'Hurricane Sandy' },
  { date: '2018-12-05', reason: 'national day of mourning for President George H. W. Bush' },
  { date: '2025-01-09', reason: 'national day of mourning for President Carter' },
];

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
