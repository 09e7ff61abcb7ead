/**
 * Dates as day numbers (days since 1970-01-01, a Thursday, as DuckDB's `date - DATE '1970-01-01'`) and the
 * business-day calendars tabulated over them, for the loops that visit every day of decades: the validator's
 * publication rhythm (../ingest/rhythm.ts) and the loader's release days (./usable-days.ts). Converting by
 * arithmetic (H. Hinnant's days_from_civil and civil_from_days) and looking days up in tables costs
 * nanoseconds where a `Date` per day costs about a microsecond. The tables come from the calendars themselves
 * (`isBusinessWeekday` on every weekday, ../../src/core/calendars/business-days.ts), so they cannot disagree with them. Pure, apart from the tables a
 * process keeps once made.
 */
import { isBusinessWeekday, type BusinessCalendar } from '../../src/core/calendars/business-days.js';

/** The day number of a valid ISO date `YYYY-MM-DD`. */
export function dayOfIso(isoDate: string): number {
  const m = Number(isoDate.slice(5, 7));
  const d = Number(isoDate.slice(8, 10));
  const y = Number(isoDate.slice(0, 4)) - (m <= 2 ? 1 : 0);
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

const two = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** The ISO date `YYYY-MM-DD` of a day number (years 0–9999). */
export function isoOfDay(day: number): string {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${String(y).padStart(4, '0')}-${two(m)}-${two(d)}`;
}

/** Day of the week of a day number: 0 Sunday … 6 Saturday. */
export const weekdayOfDay = (day: number): number => (((day + 4) % 7) + 7) % 7;

/** A business-day calendar over the days [first, first + length). */
export interface CalendarTable {
  first: number;
  length: number;
  /** 1 on a business day. */
  business: Uint8Array;
  /** Index of the first business day strictly after each index (−1 past the table). */
  next: Int32Array;
  /** Index of the last business day strictly before each index (−1 before the table). */
  previous: Int32Array;
}

function tabulate(calendar: BusinessCalendar, first: number, length: number, known?: CalendarTable): CalendarTable {
  const business = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    const k = first + i - (known?.first ?? 0);
    if (known && k >= 0 && k < known.length) {
      business[i] = known.business[k]!;
      continue;
    }
    const weekday = weekdayOfDay(first + i);
    business[i] = weekday !== 0 && weekday !== 6 && isBusinessWeekday(calendar, isoOfDay(first + i)) ? 1 : 0;
  }
  const next = new Int32Array(length).fill(-1);
  for (let i = length - 2, n = -1; i >= 0; i--) {
    if (business[i + 1]) n = i + 1;
    next[i] = n;
  }
  const previous = new Int32Array(length).fill(-1);
  for (let i = 1, p = -1; i < length; i++) {
    if (business[i - 1]) p = i - 1;
    previous[i] = p;
  }
  return { first, length, business, next, previous };
}

/** The tables made so far, one per calendar, each covering every range asked for until now. */
const tables = new Map<BusinessCalendar, CalendarTable>();

/** The calendar's table over at least the days [from, to] (a process tabulates each day once). */
export function calendarTable(calendar: BusinessCalendar, from: number, to: number): CalendarTable {
  const known = tables.get(calendar);
  if (known && known.first <= from && known.first + known.length > to) return known;
  const first = Math.min(from, known?.first ?? from);
  const last = Math.max(to, known ? known.first + known.length - 1 : to);
  const table = tabulate(calendar, first, last - first + 1, known);
  tables.set(calendar, table);
  return table;
}
