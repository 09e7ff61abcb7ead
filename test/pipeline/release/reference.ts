/**
 * Test helper: a second, independent statement of the release rules (`pipeline/release/`, the catalogue's
 * `RELEASES`), sharing no code with `pipeline/`: its own federal holiday rules, its own date stepping, and the
 * NYSE trading days passed in by the caller (the feature reference takes them from the GSPC file's dates).
 *
 * Every release time of the catalogue is in the afternoon, New York time (16:15 or 16:30), and a day's regime
 * is published at 06:30 New York on the next trading day. So a value released on day R is first seen by the
 * trading day whose publication comes after R's afternoon: the last trading day on or before R (its
 * publication is the first trading day after R, at 06:30). No time zone arithmetic is needed for that.
 */

/** How a series is released, in the words of the catalogue's rules. */
export type ReleaseKind =
  /** H.4.1, H.15, ICE, VIX, RRP: the next Federal Reserve business day after the date. */
  | 'fed_next_day'
  /** H.10: the Monday after the date, or the next Federal Reserve business day if that Monday is not one. */
  | 'fed_monday_after'
  /** Market closes: on the date itself (a trading day). */
  | 'close';

export const RELEASE_KIND: Readonly<Record<string, ReleaseKind>> = {
  WALCL: 'fed_next_day',
  WTREGEN: 'fed_next_day',
  RRPONTSYD: 'fed_next_day',
  DGS10: 'fed_next_day',
  DGS2: 'fed_next_day',
  T10Y2Y: 'fed_next_day',
  BAMLH0A0HYM2: 'fed_next_day',
  VIXCLS: 'fed_next_day',
  DTWEXBGS: 'fed_monday_after',
  DTWEXB: 'fed_monday_after',
  GSPC: 'close',
  SPY: 'close',
  GLD: 'close',
};

const DAY = 86_400_000;

export const shiftDays = (iso: string, n: number): string => new Date(Date.parse(`${iso}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);
const dow = (iso: string): number => new Date(`${iso}T00:00:00Z`).getUTCDay();
const ymd = (y: number, m: number, d: number): string => new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);

/** The n-th (1-based) given weekday of a month; n = -1: the last one. */
function nthWeekday(year: number, month: number, weekday: number, n: number): string {
  if (n > 0) {
    const first = ymd(year, month, 1);
    return shiftDays(first, ((weekday - dow(first) + 7) % 7) + 7 * (n - 1));
  }
  const last = ymd(year, month + 1, 0);
  return shiftDays(last, -((dow(last) - weekday + 7) % 7));
}

/**
 * The days the Federal Reserve Banks close in `year`: the eleven federal holidays (Juneteenth from 2021), a
 * Sunday one observed on the Monday, a Saturday one not moved (the Banks open the Friday before).
 */
export function fedHolidays(year: number): Set<string> {
  const fixed = [ymd(year, 1, 1), ymd(year, 7, 4), ymd(year, 11, 11), ymd(year, 12, 25)];
  if (year >= 2021) fixed.push(ymd(year, 6, 19));
  const floating = [
    nthWeekday(year, 1, 1, 3), // Martin Luther King Jr.: third Monday of January
    nthWeekday(year, 2, 1, 3), // Washington's Birthday: third Monday of February
    nthWeekday(year, 5, 1, -1), // Memorial Day: last Monday of May
    nthWeekday(year, 9, 1, 1), // Labor Day: first Monday of September
    nthWeekday(year, 10, 1, 2), // Columbus Day: second Monday of October
    nthWeekday(year, 11, 4, 4), // Thanksgiving: fourth Thursday of November
  ];
  return new Set([...fixed.map((d) => (dow(d) === 0 ? shiftDays(d, 1) : d)), ...floating]);
}

/** Each year's holidays, worked out once: a copy of the data directory asks about some 100,000 days. */
const holidaysByYear = new Map<number, ReadonlySet<string>>();
function holidaysOf(year: number): ReadonlySet<string> {
  let days = holidaysByYear.get(year);
  if (days === undefined) holidaysByYear.set(year, (days = fedHolidays(year)));
  return days;
}

export const isFedOpen = (iso: string): boolean => dow(iso) !== 0 && dow(iso) !== 6 && !holidaysOf(Number(iso.slice(0, 4))).has(iso);

/** The first Federal Reserve business day strictly after `iso`. */
export function nextFedDay(iso: string): string {
  let d = shiftDays(iso, 1);
  while (!isFedOpen(d)) d = shiftDays(d, 1);
  return d;
}

/** The day (publisher's calendar) a value dated `iso` comes out. */
export function releaseDay(kind: ReleaseKind, iso: string): string {
  if (kind === 'close') return iso;
  if (kind === 'fed_next_day') return nextFedDay(iso);
  let monday = shiftDays(iso, 1);
  while (dow(monday) !== 1) monday = shiftDays(monday, 1);
  return isFedOpen(monday) ? monday : nextFedDay(monday);
}

/** The first trading day whose regime may use a value dated `iso`: the last trading day on or before its release day. */
export function firstUsableDay(kind: ReleaseKind, iso: string, isTradingDay: (iso: string) => boolean): string {
  let d = releaseDay(kind, iso);
  while (!isTradingDay(d)) d = shiftDays(d, -1);
  return d;
}
