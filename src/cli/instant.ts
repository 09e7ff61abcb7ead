/**
 * Instants on the command line (`--from`, `--to`): an ISO 8601 date-time with a zone (`2026-03-01T09:30:00Z`,
 * `…+01:00`), a date (`2026-03-01`, midnight UTC), or Unix milliseconds (`1772357400000`), the form the
 * HTTP listing takes. A date-time without a zone is refused: local time on an operator's laptop is not the
 * engine's time, and a silent guess would move the window.
 */
import { Errors, Flags } from '@oclif/core';
import { EXIT } from '../core/errors.js';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** The largest time value a JS Date holds (ECMA-262 §21.4.1.1). */
const MAX_DATE_MS = 8.64e15;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** The instant `text` names; throws a usage error (exit 2) that says which forms are accepted. */
export function parseInstant(text: string): Date {
  const t = text.trim();
  if (/^\d{1,16}$/.test(t)) {
    const ms = Number(t);
    if (ms <= MAX_DATE_MS) return new Date(ms);
  } else {
    const date = DATE.exec(t.slice(0, 10));
    // Date.parse would roll 2026-02-31 over into March; the calendar check refuses it.
    if (date && (t.length === 10 || DATE_TIME.test(t)) && isCalendarDate(Number(date[1]), Number(date[2]), Number(date[3]))) {
      const ms = Date.parse(t.length === 10 ? `${t}T00:00:00Z` : t);
      if (Number.isFinite(ms)) return new Date(ms);
    }
  }
  throw new Errors.CLIError(
    `"${text}" is not an instant: use an ISO 8601 date-time with a zone (2026-03-01T09:30:00Z), a date (2026-03-01) or Unix milliseconds`,
    { exit: EXIT.usage },
  );
}

/** Whether year-month-day exists in the Gregorian calendar. */
export function isCalendarDate(year: number, month: number, day: number): boolean {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** Whether `text` is a calendar date `YYYY-MM-DD` (2026-02-31 is not). */
export function isCalendarDateText(text: string): boolean {
  const ymd = DATE.exec(text);
  return ymd !== null && isCalendarDate(Number(ymd[1]), Number(ymd[2]), Number(ymd[3]));
}

/** A flag holding a calendar date `YYYY-MM-DD`, as text; anything else is a usage error (exit 2). */
export const calendarDateFlag = Flags.custom<string>({
  helpValue: 'YYYY-MM-DD',
  parse: async (input) => {
    if (isCalendarDateText(input)) return input;
    throw new Errors.CLIError(`"${input}" is not a calendar date YYYY-MM-DD`, { exit: EXIT.usage });
  },
});

/** A flag holding an instant (see `parseInstant`). */
export const instantFlag = Flags.custom<Date>({
  helpValue: 'ISO|UNIX_MS',
  parse: async (input) => parseInstant(input),
});
