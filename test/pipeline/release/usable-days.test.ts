/**
 * pipeline/release/usable-days.ts, the loader's form of `usableFrom`: the same day as `usableFrom` for every
 * rule of the catalogue and the edge rules of usable-from.test.ts (a release before 06:30, at 06:30, in another
 * zone), on every date of 1990–2030, weekends, holidays and the NYSE's special closures included, whatever the
 * order and spread of the dates asked for.
 */
import { describe, expect, it } from 'vitest';
import { RELEASES } from '../../../pipeline/ingest/catalogue.js';
import { isNyseTradingDay } from '../../../src/core/calendars/nyse.js';
import { dayOfIso, isoOfDay } from '../../../pipeline/release/day-tables.js';
import { usableFromDays } from '../../../pipeline/release/usable-days.js';
import { usableFrom } from '../../../pipeline/release/usable-from.js';
import type { ReleaseRule } from '../../../pipeline/release/rules.js';

const NY = 'America/New_York';
const EDGE: Record<string, ReleaseRule> = {
  early: { kind: 'business_days', lag: 0, calendar: 'nyse', time: '05:00', timeZone: NY, source: 'a release before the publication time' },
  atPublication: { kind: 'business_days', lag: 1, calendar: 'fed', time: '06:30', timeZone: NY, source: 'a release at the publication time' },
  lagThree: { kind: 'business_days', lag: 3, calendar: 'nyse', time: '09:00', timeZone: NY, source: 'three trading days later' },
  friday: { kind: 'weekly', weekday: 5, calendar: 'nyse', time: '08:30', timeZone: NY, source: 'the Friday after' },
  london: { kind: 'business_days', lag: 0, calendar: 'fed', time: '11:00', timeZone: 'Europe/London', source: 'a release in another zone' },
};

const every = (from: string, to: string): number[] => {
  const out: number[] = [];
  for (let d = dayOfIso(from); d <= dayOfIso(to); d++) out.push(d);
  return out;
};

describe('usableFromDays', () => {
  it('day numbers are days since 1970-01-01, both ways', () => {
    expect(dayOfIso('1970-01-01')).toBe(0);
    expect(dayOfIso('2001-09-11')).toBe(11576);
    expect(isoOfDay(11576)).toBe('2001-09-11');
    expect(isoOfDay(-1)).toBe('1969-12-31');
  });

  it.each(Object.entries({ ...RELEASES, ...EDGE }))("%s: usableFrom's day for every date of 1990–2030", (_name, rule) => {
    const days = every(rule.timeZone === NY ? '1990-01-01' : '2019-01-01', rule.timeZone === NY ? '2030-12-31' : '2020-12-31');
    const got = usableFromDays(rule, days);
    const wrong = days.filter((d, n) => isoOfDay(got[n]!) !== usableFrom(rule, isoOfDay(d)));
    expect(wrong.map(isoOfDay)).toEqual([]);
    expect(Array.from(got).filter((u) => !isNyseTradingDay(isoOfDay(u)))).toEqual([]);
  });

  it('answers each date alone as it does in a run of dates, in any order (the tables follow the dates asked for)', () => {
    const days = [dayOfIso('2001-09-10'), dayOfIso('2012-10-26'), dayOfIso('1990-01-01'), dayOfIso('2025-11-26'), dayOfIso('2001-09-10')];
    for (const rule of Object.values(RELEASES)) {
      const together = Array.from(usableFromDays(rule, days));
      expect(together).toEqual(days.map((d) => usableFromDays(rule, [d])[0]));
      expect(together.map(isoOfDay)).toEqual(days.map((d) => usableFrom(rule, isoOfDay(d))));
    }
    // 9/11: the NYSE closed 11–14 September 2001; the close of the 10th is first used on the 10th itself.
    expect(isoOfDay(usableFromDays(RELEASES.close, [dayOfIso('2001-09-10')])[0]!)).toBe('2001-09-10');
    expect(usableFromDays(RELEASES.h41, [])).toHaveLength(0);
  });
});
