/**
 * From a release to the first trading day whose regime may use it: a worked example for each rule of the
 * catalogue, a rule released before 06:30 and one in another time zone, and the property that the fast path
 * (rules in New York time, compared by time of day) equals the general one (through instants) for every rule
 * over every date of 2019–2026, and agrees with the independent statement of `./reference.ts`.
 */
import { describe, expect, it } from 'vitest';
import { RELEASES } from '../../../pipeline/ingest/catalogue.js';
import { isNyseTradingDay } from '../../../src/core/calendars/nyse.js';
import { availableAt } from '../../../pipeline/release/publication.js';
import { releasedAt, type ReleaseRule } from '../../../pipeline/release/rules.js';
import { firstDayPublishedAfter, usableFrom } from '../../../pipeline/release/usable-from.js';
import { firstUsableDay, shiftDays, type ReleaseKind } from './reference.js';

const NY = 'America/New_York';
const early: ReleaseRule = { kind: 'business_days', lag: 0, calendar: 'nyse', time: '05:00', timeZone: NY, source: 'a release before the publication time' };
const atPublication: ReleaseRule = { kind: 'business_days', lag: 1, calendar: 'fed', time: '06:30', timeZone: NY, source: 'a release at the publication time' };
const london: ReleaseRule = { kind: 'business_days', lag: 0, calendar: 'fed', time: '11:00', timeZone: 'Europe/London', source: 'a release in another zone' };

describe('usableFrom: worked examples', () => {
  it.each([
    // rule, date, first trading day whose regime uses it, why
    ['h41', '2025-11-19', '2025-11-20', 'out Thursday 16:30; Thursday is published Friday 06:30'],
    ['h41', '2025-11-26', '2025-11-28', 'out Friday after Thanksgiving; Wednesday is published Friday 06:30, before it'],
    ['h15', '2020-02-28', '2020-03-02', 'a Friday: out Monday 16:15, after Friday is published (Monday 06:30)'],
    ['h15', '2020-03-18', '2020-03-19', 'out Thursday 16:15: Thursday, published Friday 06:30, is the first to see it'],
    ['ice', '2008-10-10', '2008-10-14', 'Columbus Day Monday: the Fed closed, out Tuesday'],
    ['vix', '2024-03-28', '2024-03-28', 'out Good Friday 16:30 (the Fed open), before Thursday is published Monday 06:30'],
    ['rrp', '2013-10-11', '2013-10-15', 'Columbus Day Monday: out Tuesday'],
    ['h10', '2026-01-16', '2026-01-20', 'out Tuesday 2026-01-20 after Martin Luther King Jr. Day'],
    ['h10', '2025-06-09', '2025-06-16', 'a Monday: out with its week, the Monday after'],
    ['close', '2025-11-28', '2025-11-28', 'a close is out at 16:30, before its day is published'],
  ] as const)('%s of %s: first used on %s (%s)', (rule, date, usable, _why) => {
    expect(usableFrom(RELEASES[rule], date)).toBe(usable);
  });

  it("takes a release at or before 06:30 into that morning's publication: the trading day before", () => {
    expect(usableFrom(early, '2025-11-28')).toBe('2025-11-26'); // out Friday 05:00, Wednesday is published Friday 06:30
    expect(usableFrom(atPublication, '2025-11-26')).toBe('2025-11-26'); // out Friday 06:30 exactly: at or after counts
  });

  it('converts a release in another time zone through its instant, each zone with its own clock changes', () => {
    // London 11:00 is 06:00 New York in January (in time for that morning's publication) but 07:00 in the
    // weeks of March when New York has moved to summer time and London not yet (too late for it).
    expect(usableFrom(london, '2025-01-15')).toBe('2025-01-14');
    expect(usableFrom(london, '2025-03-12')).toBe('2025-03-12');
    expect(usableFrom(london, '2025-04-09')).toBe('2025-04-08');
  });
});

describe('usableFrom: properties over every date of 2019–2026', () => {
  const rules: Array<[string, ReleaseRule]> = [...Object.entries(RELEASES), ['early', early], ['atPublication', atPublication], ['london', london]];
  it.each(rules)('%s: the fast path equals firstDayPublishedAfter(releasedAt(…)), the first day published at or after the release', (_name, rule) => {
    const mismatches: string[] = [];
    for (let d = '2019-01-01'; d <= '2026-12-31'; d = shiftDays(d, 1)) {
      if (rule === RELEASES.close && !isNyseTradingDay(d)) continue;
      const released = releasedAt(rule, d);
      const u = usableFrom(rule, d);
      if (u !== firstDayPublishedAfter(released)) mismatches.push(`${d}: ${u}`);
      // the definition itself: the day's publication is at or after the release
      if (availableAt(u) < released) mismatches.push(`${d}: ${u} is published before the release`);
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
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
  it.each(Object.keys(kinds) as Array<keyof typeof RELEASES>)('%s agrees with the independent statement', (name) => {
    const mismatches: string[] = [];
    for (let d = '2019-01-01'; d <= '2026-12-31'; d = shiftDays(d, 1)) {
      if (name === 'close' && !isNyseTradingDay(d)) continue;
      if (usableFrom(RELEASES[name], d) !== firstUsableDay(kinds[name], d, isNyseTradingDay)) mismatches.push(d);
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
  });
});
