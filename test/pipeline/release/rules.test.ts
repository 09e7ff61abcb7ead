/**
 * Release rules: release dates and instants worked out by hand from the publishers' calendars, and a
 * cross-check of every catalogue rule over 2000–2030 against the independent statement in `./reference.ts`.
 */
import { describe, expect, it } from 'vitest';
import { RELEASES } from '../../../pipeline/ingest/catalogue.js';
import { isNyseTradingDay } from '../../../src/core/calendars/nyse.js';
import { describeRule, releaseDate, releasedAt, type ReleaseRule } from '../../../pipeline/release/rules.js';
import { releaseDay, shiftDays, type ReleaseKind } from './reference.js';

const iso = (ms: number): string => new Date(ms).toISOString();

describe('releaseDate and releasedAt', () => {
  it.each([
    // rule, date, release instant, why
    ['h41', '2025-11-19', '2025-11-20T21:30:00.000Z', 'an ordinary Thursday'],
    ['h41', '2025-11-26', '2025-11-28T21:30:00.000Z', 'Thanksgiving week: out Friday'],
    ['h41', '2021-11-10', '2021-11-12T21:30:00.000Z', 'Veterans Day on the Thursday: out Friday'],
    ['h15', '2025-03-07', '2025-03-10T20:15:00.000Z', 'a Friday: out Monday, the day after clocks went forward (EDT)'],
    ['h15', '2025-10-10', '2025-10-14T20:15:00.000Z', 'a Friday before Columbus Day: out Tuesday'],
    ['ice', '2025-05-31', '2025-06-02T20:30:00.000Z', 'a Saturday month end: out the next business day'],
    ['vix', '2025-04-17', '2025-04-18T20:30:00.000Z', 'the Fed is open on Good Friday'],
    ['rrp', '2022-12-23', '2022-12-27T21:30:00.000Z', 'over Christmas observed on Monday 2022-12-26'],
    ['h10', '2026-01-16', '2026-01-20T21:15:00.000Z', 'the Monday after is Martin Luther King Jr. Day: out Tuesday'],
    ['h10', '2026-01-12', '2026-01-20T21:15:00.000Z', 'the same week, from its Monday'],
    ['h10', '2025-06-13', '2025-06-16T20:15:00.000Z', 'a Friday: out the Monday after'],
    ['close', '2025-11-28', '2025-11-28T21:30:00.000Z', 'a close is out on its day'],
  ] as const)('%s of %s is out at %s (%s)', (rule, date, at, _why) => {
    expect(iso(releasedAt(RELEASES[rule], date))).toBe(at);
    expect(releaseDate(RELEASES[rule], date)).toBe(at.slice(0, 10));
  });

  const kinds: Record<keyof typeof RELEASES, ReleaseKind> = {
    h41: 'fed_next_day',
    h15: 'fed_next_day',
    ice: 'fed_next_day',
    vix: 'fed_next_day',
    rrp: 'fed_next_day',
    h10: 'fed_monday_after',
    close: 'close',
  };
  it.each(Object.keys(kinds) as Array<keyof typeof RELEASES>)('%s agrees with the independent statement on every date 2000–2030', (name) => {
    const mismatches: string[] = [];
    for (let d = '2000-01-01'; d <= '2030-12-31'; d = shiftDays(d, 1)) {
      // A close is dated on a trading day; the other rules take any date (FRED's holiday rows, ICE's weekend month ends).
      if (name === 'close' && !isNyseTradingDay(d)) continue;
      if (releaseDate(RELEASES[name], d) !== releaseDay(kinds[name], d)) mismatches.push(d);
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
  });
});

describe('describeRule', () => {
  it.each([
    [
      { kind: 'business_days', lag: 2, calendar: 'fed', time: '09:00', timeZone: 'Europe/London', source: 'x' },
      '2 Federal Reserve business days after the date, 09:00 Europe/London',
    ],
    [
      { kind: 'weekly', weekday: 5, calendar: 'nyse', time: '16:00', timeZone: 'America/New_York', source: 'x' },
      'on the Friday after the date (the next NYSE trading day if a holiday), 16:00 America/New_York',
    ],
  ] as Array<[ReleaseRule, string]>)('%j reads %s', (rule, words) => {
    expect(describeRule(rule)).toBe(words);
  });
});
