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
import { calendarTable, dayOfIso, isoOfDay, weekdayOfDay, type CalendarTable } from '../release/day-tables.js';
import { nyseWeekdayClosure } from '../../src/core/calendars/nyse.js';
import type { Report } from './problems.js';
import type { CheckedRow } from './row-rules.js';

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** What a day is to the rhythm: expected (a row must exist), off (no row may exist), or unchecked. */
type DayKind = { kind: 'expected' } | { kind: 'off'; why: string } | { kind: 'unchecked' };

function classify(rhythm: Rhythm, day: number, from: number | null, nyse: CalendarTable | null): DayKind {
  const weekday = weekdayOfDay(day);
  switch (rhythm.kind) {
    case 'weekdays': {
      if (weekday !== 0 && weekday !== 6) return EXPECTED;
      // A weekend month end is allowed (ICE), not expected.
      if (rhythm.monthEndWeekends && isoOfDay(day + 1).endsWith('-01')) return UNCHECKED;
      return { kind: 'off', why: `a ${DAY_NAMES[weekday]}` };
    }
    case 'wednesdays':
      return weekday === 3 ? EXPECTED : { kind: 'off', why: `a ${DAY_NAMES[weekday]}` };
    case 'nyse': {
      if (from === null || day < from) return UNCHECKED;
      if (weekday === 0 || weekday === 6) return { kind: 'off', why: `the NYSE was closed (a ${DAY_NAMES[weekday]})` };
      // The trading-day table answers for every day; the closure's name is looked up only for a day reported.
      if (nyse !== null && nyse.business[day - nyse.first] === 1) return EXPECTED;
      const closure = nyseWeekdayClosure(isoOfDay(day));
      return closure === null ? EXPECTED : { kind: 'off', why: `the NYSE was closed (${closure})` };
    }
  }
}

const EXPECTED: DayKind = { kind: 'expected' };
const UNCHECKED: DayKind = { kind: 'unchecked' };

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

/** Each date once, ascending, with the first line it is on: the rows as they are when they are in order (the usual case). */
function datesInOrder(rows: readonly CheckedRow[]): { dates: string[]; lines: number[] } {
  const dates: string[] = [];
  const lines: number[] = [];
  for (const row of rows) {
    if (row.date === null) continue;
    if (dates.length > 0 && row.date <= dates[dates.length - 1]!) {
      // Out of order or repeated (date-order.ts reports those): each date's first line, sorted by date.
      const firstLine = new Map<string, number>();
      for (const r of rows) if (r.date !== null && !firstLine.has(r.date)) firstLine.set(r.date, r.line);
      const sorted = [...firstLine.keys()].sort();
      return { dates: sorted, lines: sorted.map((d) => firstLine.get(d)!) };
    }
    dates.push(row.date);
    lines.push(row.line);
  }
  return { dates, lines };
}

export function checkRhythm(spec: SeriesSpec, rows: readonly CheckedRow[], report: Report): void {
  const { dates, lines } = datesInOrder(rows);
  const word = DAY_WORD[spec.rhythm.kind];
  const from = spec.rhythm.kind === 'nyse' ? dayOfIso(spec.rhythm.from) : null;
  const nyse = from !== null && dates.length > 0 ? calendarTable('nyse', dayOfIso(dates[0]!), dayOfIso(dates.at(-1)!)) : null;
  let previous: number | null = null;
  for (let n = 0; n < dates.length; n++) {
    const date = dates[n]!;
    const line = lines[n]!;
    const day = dayOfIso(date);
    const kind = classify(spec.rhythm, day, from, nyse);
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
        if (classify(spec.rhythm, d, from, nyse).kind !== 'expected') continue;
        if (count === 0) first = d;
        last = d;
        count++;
      }
      if (count > 0) {
        const days = count === 1 ? `the ${word} ${isoOfDay(first)}` : `the ${count} ${word}s ${isoOfDay(first)} to ${isoOfDay(last)}`;
        report({
          line,
          subject: 'date',
          text: date,
          date,
          rule: 'gap',
          message: `no row for ${days} before it (the row before is ${isoOfDay(previous)}); ${ruleText(spec)}`,
        });
      }
    }
    previous = day;
  }
}
