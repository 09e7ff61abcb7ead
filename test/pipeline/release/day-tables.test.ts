/**
 * pipeline/release/day-tables.ts: day numbers against JavaScript's own calendar arithmetic (`Date`) on every
 * day of 1800–2200, and the tabulated calendars against the calendars they are made from, over ranges asked for
 * in any order (a table that grows keeps what it had).
 */
import { describe, expect, it } from 'vitest';
import { isBusinessDay } from '../../../src/core/calendars/business-days.js';
import { calendarTable, dayOfIso, isoOfDay, weekdayOfDay } from '../../../pipeline/release/day-tables.js';

const DAY_MS = 86_400_000;

describe('day numbers', () => {
  it('agree with Date on every day of 1800–2200: ISO text both ways and the day of the week', () => {
    const from = Date.UTC(1800, 0, 1) / DAY_MS;
    const to = Date.UTC(2200, 11, 31) / DAY_MS;
    const wrong: string[] = [];
    for (let day = from; day <= to; day++) {
      const date = new Date(day * DAY_MS);
      const iso = date.toISOString().slice(0, 10);
      if (isoOfDay(day) !== iso || dayOfIso(iso) !== day || weekdayOfDay(day) !== date.getUTCDay()) wrong.push(iso);
    }
    expect(wrong).toEqual([]);
    expect(to - from + 1).toBe(401 * 365 + 97);
  });

  it('count from 1970-01-01, a Thursday', () => {
    expect(dayOfIso('1970-01-01')).toBe(0);
    expect(weekdayOfDay(0)).toBe(4);
    expect(isoOfDay(-1)).toBe('1969-12-31');
    expect(dayOfIso('2000-02-29')).toBe(11_016);
  });
});

describe('calendarTable', () => {
  it.each(['fed', 'nyse'] as const)('%s: is the calendar, with its next and previous business days, across ranges that grow', (calendar) => {
    const ranges: [string, string][] = [
      ['2001-09-01', '2001-09-30'],
      ['1999-12-01', '2000-01-31'],
      ['2024-11-01', '2025-01-15'],
      ['1990-01-01', '2030-12-31'],
    ];
    for (const [a, b] of ranges) {
      const t = calendarTable(calendar, dayOfIso(a), dayOfIso(b));
      expect(t.first).toBeLessThanOrEqual(dayOfIso(a));
      expect(t.first + t.length - 1).toBeGreaterThanOrEqual(dayOfIso(b));
      for (let day = dayOfIso(a); day <= dayOfIso(b); day++) {
        const i = day - t.first;
        expect(t.business[i] === 1, isoOfDay(day)).toBe(isBusinessDay(calendar, isoOfDay(day)));
        let next = day + 1;
        while (!isBusinessDay(calendar, isoOfDay(next))) next++;
        if (next - t.first < t.length) expect(t.next[i]! + t.first, isoOfDay(day)).toBe(next);
        let previous = day - 1;
        while (!isBusinessDay(calendar, isoOfDay(previous))) previous--;
        if (previous >= t.first) expect(t.previous[i]! + t.first, isoOfDay(day)).toBe(previous);
      }
    }
    // 9/11: the NYSE's next trading day after 10 September 2001 is the 17th; the Fed's is the 11th.
    const t = calendarTable(calendar, dayOfIso('2001-09-10'), dayOfIso('2001-09-20'));
    expect(isoOfDay(t.next[dayOfIso('2001-09-10') - t.first]! + t.first)).toBe(calendar === 'nyse' ? '2001-09-17' : '2001-09-11');
  });
});
