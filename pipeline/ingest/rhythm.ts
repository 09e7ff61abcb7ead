/**
 * The publication rhythm of an input file (catalogue.ts `Rhythm`): between its first and last row, a row
 * on every day the rhythm expects, and none on a day it does not. FRED daily files have a row on every
 * weekday (an empty value on a holiday); H.4.1 files one every Wednesday, 7 days apart; market files one
 * on every NYSE trading day (nyse-calendar.ts). A missing day is reported on the row after the gap, which
 * names it; a row on a day off the rhythm is reported on its own line.
 *
 * The dates are taken in calendar order, so rows out of order (date-order.ts reports those) do not show
 * up as gaps as well.
 */
import type { Rhythm, SeriesSpec } from './catalogue.js';
import { nyseClosure } from './nyse-calendar.js';
import type { Report } from './problems.js';
import type { CheckedRow } from './row-rules.js';

const DAY_MS = 86_400_000;
const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Days since 1970-01-01 of a valid ISO date, by arithmetic (H. Hinnant's days_from_civil): no Date per row. */
function epochDay(isoDate: string): number {
  const m = Number(isoDate.slice(5, 7));
  const d = Number(isoDate.slice(8, 10));
  const y = Number(isoDate.slice(0, 4)) - (m <= 2 ? 1 : 0);
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}
const isoOf = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);
/** 1970-01-01 was a Thursday. */
const weekdayOf = (day: number): number => (((day + 4) % 7) + 7) % 7;

/** What a day is to the rhythm: expected (a row must exist), off (no row may exist), or unchecked. */
type DayKind = { kind: 'expected' } | { kind: 'off'; why: string } | { kind: 'unchecked' };

function classify(rhythm: Rhythm, day: number, from: number | null): DayKind {
  const weekday = weekdayOf(day);
  switch (rhythm.kind) {
    case 'weekdays': {
      if (weekday !== 0 && weekday !== 6) return { kind: 'expected' };
      // A weekend month end is allowed (ICE), not expected.
      if (rhythm.monthEndWeekends && new Date((day + 1) * DAY_MS).getUTCDate() === 1) return { kind: 'unchecked' };
      return { kind: 'off', why: `a ${DAY_NAMES[weekday]}` };
    }
    case 'wednesdays':
      return weekday === 3 ? { kind: 'expected' } : { kind: 'off', why: `a ${DAY_NAMES[weekday]}` };
    case 'nyse': {
      if (from === null || day < from) return { kind: 'unchecked' };
      if (weekday === 0 || weekday === 6) return { kind: 'off', why: `the NYSE was closed (a ${DAY_NAMES[weekday]})` };
      const closure = nyseClosure(isoOf(day));
      return closure === null ? { kind: 'expected' } : { kind: 'off', why: `the NYSE was closed (${closure})` };
    }
  }
}

function ruleText(spec: SeriesSpec): string {
  const r = spec.rhythm;
  switch (r.kind) {
    case 'weekdays':
      return `${spec.id} has a row on every weekday${r.monthEndWeekends ? ' (and may have one on a weekend month end)' : ' and none on a weekend'} (${r.why})`;
    case 'wednesdays':
      return `${spec.id} has a row every Wednesday, 7 days apart (${r.why})`;
    case 'nyse':
      return `${spec.id} has a row on every NYSE trading day from ${r.from} and on no other day (${r.why})`;
  }
}

const DAY_WORD: Record<Rhythm['kind'], string> = { weekdays: 'weekday', wednesdays: 'Wednesday', nyse: 'NYSE trading day' };

export function checkRhythm(spec: SeriesSpec, rows: readonly CheckedRow[], report: Report): void {
  const firstLine = new Map<string, number>();
  for (const row of rows) if (row.date !== null && !firstLine.has(row.date)) firstLine.set(row.date, row.line);
  const dates = [...firstLine.keys()];
  // Files are in order unless date-order.ts has something to say; sort only then.
  if (dates.some((d, i) => i > 0 && d < (dates[i - 1] as string))) dates.sort();
  const word = DAY_WORD[spec.rhythm.kind];
  const from = spec.rhythm.kind === 'nyse' ? epochDay(spec.rhythm.from) : null;
  let previous: number | null = null;
  for (const date of dates) {
    const line = firstLine.get(date) as number;
    const day = epochDay(date);
    const kind = classify(spec.rhythm, day, from);
    if (kind.kind === 'off') {
      report({ line, subject: 'date', text: date, date, rule: 'off_rhythm', message: `${kind.why}; ${ruleText(spec)}` });
      continue;
    }
    if (kind.kind === 'unchecked') continue;
    if (previous !== null) {
      let count = 0;
      let first = 0;
      let last = 0;
      for (let d = previous + 1; d < day; d++) {
        if (classify(spec.rhythm, d, from).kind !== 'expected') continue;
        if (count === 0) first = d;
        last = d;
        count++;
      }
      if (count > 0) {
        const days = count === 1 ? `the ${word} ${isoOf(first)}` : `the ${count} ${word}s ${isoOf(first)} to ${isoOf(last)}`;
        report({ line, subject: 'date', text: date, date, rule: 'gap', message: `no row for ${days} before it (the row before is ${isoOf(previous)}); ${ruleText(spec)}` });
      }
    }
    previous = day;
  }
}
