/**
 * The Federal Reserve and NYSE business-day calendars: the Fed's own holiday rule (a Saturday holiday is not
 * moved, a Sunday one is observed on Monday), the holidays on which one is open and the other closed, and a
 * cross-check of every date 2000–2030 against the independent holiday rules of `./reference.ts`.
 */
import { describe, expect, it } from 'vitest';
import { addBusinessDays, isBusinessDay, isFedBusinessDay, nextBusinessDay, onOrNextBusinessDay } from '../../../src/core/calendars/business-days.js';
import { isFedOpen, shiftDays } from './reference.js';

describe('Federal Reserve business days', () => {
  it.each([
    // date, open, why
    ['2021-06-18', true, 'Juneteenth 2021 fell on a Saturday: federal offices closed Friday, the Fed Banks opened'],
    ['2021-12-31', true, 'New Year 2022 fell on a Saturday: the Fed Banks opened the Friday before'],
    ['2022-12-26', false, 'Christmas 2022 fell on a Sunday: observed Monday'],
    ['2023-06-19', false, 'Juneteenth on a Monday'],
    ['2025-10-13', false, 'Columbus Day'],
    ['2025-11-11', false, 'Veterans Day'],
    ['2025-11-27', false, 'Thanksgiving'],
    ['2025-11-28', true, 'the day after Thanksgiving'],
    ['2025-04-18', true, 'Good Friday is not a federal holiday'],
    ['2025-01-09', true, 'the NYSE closed to mourn President Carter; the Fed did not'],
    ['2025-11-29', false, 'a Saturday'],
  ])('%s: open %s (%s)', (date, open, _why) => {
    expect(isFedBusinessDay(date)).toBe(open);
    expect(isBusinessDay('fed', date)).toBe(open);
  });

  it('agrees with the independent holiday rules on every date 2000–2030', () => {
    const mismatches: string[] = [];
    for (let d = '2000-01-01'; d <= '2030-12-31'; d = shiftDays(d, 1)) {
      if (isFedBusinessDay(d) !== isFedOpen(d)) mismatches.push(d);
    }
    expect(mismatches).toEqual([]);
  });
});

describe('NYSE trading days against the Fed', () => {
  it.each([
    ['2025-10-13', true, false], // Columbus Day: stocks trade, the Fed is closed
    ['2025-11-11', true, false], // Veterans Day
    ['2025-04-18', false, true], // Good Friday: the NYSE is closed, the Fed open
    ['2025-01-09', false, true], // national day of mourning for President Carter
    ['2025-11-27', false, false], // Thanksgiving
  ])('%s: NYSE %s, Fed %s', (date, nyse, fed) => {
    expect([isBusinessDay('nyse', date), isBusinessDay('fed', date)]).toEqual([nyse, fed]);
  });
});

describe('stepping', () => {
  it.each([
    ['fed', '2025-11-26', '2025-11-28'], // over Thanksgiving
    ['fed', '2025-10-10', '2025-10-14'], // over a weekend and Columbus Day
    ['nyse', '2025-10-10', '2025-10-13'],
    ['nyse', '2025-04-17', '2025-04-21'], // over Good Friday
    ['fed', '2025-04-17', '2025-04-18'],
  ] as const)('next %s business day after %s is %s', (calendar, date, next) => {
    expect(nextBusinessDay(calendar, date)).toBe(next);
  });

  it('counts a lag from the date itself, and lag 0 is the date or the next business day', () => {
    expect(addBusinessDays('fed', '2025-11-26', 1)).toBe('2025-11-28');
    expect(addBusinessDays('fed', '2025-11-29', 1)).toBe('2025-12-01'); // a Saturday: the first business day after
    expect(addBusinessDays('fed', '2025-11-26', 2)).toBe('2025-12-01');
    expect(addBusinessDays('nyse', '2025-11-29', 0)).toBe('2025-12-01');
    expect(addBusinessDays('nyse', '2025-11-28', 0)).toBe('2025-11-28');
    expect(onOrNextBusinessDay('fed', '2025-11-27')).toBe('2025-11-28');
  });

  it.each([-1, 1.5, Number.NaN])('refuses the lag %s', (n) => {
    expect(() => addBusinessDays('fed', '2025-11-26', n)).toThrow(RangeError);
  });
});
