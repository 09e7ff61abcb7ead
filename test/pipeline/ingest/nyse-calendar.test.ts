/**
 * The NYSE calendar of the market files: regular holidays from the nyse-holidays package (with the
 * NYSE's weekend rules), the special closures the catalogue lists, and every other weekday a trading day.
 */
import { describe, expect, it } from 'vitest';
import { NYSE_SPECIAL_CLOSURES } from '../../../src/core/calendars/nyse.js';
import { isNyseTradingDay, nyseClosure } from '../../../src/core/calendars/nyse.js';

describe('nyseClosure', () => {
  it.each<[string, string | null]>([
    ['2020-03-16', null],
    ['2020-03-14', 'a weekend'],
    ['2024-03-29', 'Good Friday'],
    ['2022-06-20', 'Juneteenth National Independence Day'], // 19 June 2022 was a Sunday: observed on the Monday
    ['2021-12-24', 'Christmas Day'], // 25 December 2021 was a Saturday: observed on the Friday
    ['2021-12-31', null], // New Year 2022 fell on a Saturday: the NYSE stays open on the Friday before
    ['2007-01-02', 'national day of mourning for President Ford'],
    ['2001-09-13', 'the September 11 attacks'],
    ['2012-10-30', 'Hurricane Sandy'],
    ['2025-01-09', 'national day of mourning for President Carter'],
    ['2025-01-10', null],
  ])('%s → %s', (date, reason) => {
    expect(nyseClosure(date)).toBe(reason);
    expect(isNyseTradingDay(date)).toBe(reason === null);
  });

  it('lists each special closure once, on a weekday that is no regular holiday', () => {
    const dates = NYSE_SPECIAL_CLOSURES.map((c) => c.date);
    expect(new Set(dates).size).toBe(dates.length);
    for (const { date, reason } of NYSE_SPECIAL_CLOSURES) expect(nyseClosure(date), date).toBe(reason);
    expect(dates).toEqual([...dates].sort());
  });
});
