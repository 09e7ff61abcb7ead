/** The catalogue's date helpers and the rules it states (table-driven). */
import { describe, expect, it } from 'vitest';
import { CATALOGUE, isIsoDate, seriesSpec } from '../../../pipeline/ingest/catalogue.js';
import { addDays } from '../../../src/core/dates.js';
import { describeRule } from '../../../pipeline/release/rules.js';

describe('addDays', () => {
  it.each([
    ['2020-03-18', 1, '2020-03-19'],
    ['2020-02-28', 1, '2020-02-29'],
    ['2019-02-28', 1, '2019-03-01'],
    ['2025-12-31', 1, '2026-01-01'],
    ['2025-11-19', 7, '2025-11-26'],
    ['2024-03-10', 0, '2024-03-10'],
  ])('%s + %i = %s (no time-zone or DST drift)', (date, days, expected) => {
    expect(addDays(date, days)).toBe(expected);
  });
});

describe('isIsoDate', () => {
  it.each([
    ['2020-02-29', true],
    ['2021-02-29', false],
    ['2021-13-01', false],
    ['2021-1-01', false],
    ['2021-01-01T00:00:00Z', false],
    ['', false],
    ['2021-00-10', false],
    ['2021-04-31', false],
    ['1900-02-29', false],
    ['2000-02-29', true],
    ['2021-04-3a', false],
    ['2021/04/30', false],
    ['２０２１-04-30', false],
    ['+021-04-30', false],
  ])('%s → %s', (text, ok) => {
    expect(isIsoDate(text)).toBe(ok);
  });

  it('is true exactly for the dates Date writes, on every day of 1600–2400 and their neighbours off the calendar', () => {
    const wrong: string[] = [];
    for (let t = Date.UTC(1600, 0, 1); t <= Date.UTC(2400, 11, 31); t += 86_400_000) {
      const iso = new Date(t).toISOString().slice(0, 10);
      if (!isIsoDate(iso)) wrong.push(iso);
      // The day after the month's last (the 29th to 32nd of a month that has no such day) is never a date.
      const last = new Date(t + 86_400_000).getUTCDate() === 1;
      if (last && isIsoDate(`${iso.slice(0, 8)}${String(Number(iso.slice(8)) + 1).padStart(2, '0')}`)) wrong.push(`${iso}+1`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('CATALOGUE', () => {
  it('has one entry per file and id', () => {
    expect(new Set(CATALOGUE.map((s) => s.id)).size).toBe(CATALOGUE.length);
    expect(new Set(CATALOGUE.map((s) => s.file)).size).toBe(CATALOGUE.length);
  });

  // Each publisher's calendar, restated by hand from its release page (the rule's `source` cites it):
  // [series, rule in words].
  it.each([
    ['WALCL', '1 Federal Reserve business day after the date, 16:30 America/New_York'],
    ['WTREGEN', '1 Federal Reserve business day after the date, 16:30 America/New_York'],
    ['RRPONTSYD', '1 Federal Reserve business day after the date, 16:30 America/New_York'],
    ['DGS10', '1 Federal Reserve business day after the date, 16:15 America/New_York'],
    ['DGS2', '1 Federal Reserve business day after the date, 16:15 America/New_York'],
    ['T10Y2Y', '1 Federal Reserve business day after the date, 16:15 America/New_York'],
    ['BAMLH0A0HYM2', '1 Federal Reserve business day after the date, 16:30 America/New_York'],
    ['VIXCLS', '1 Federal Reserve business day after the date, 16:30 America/New_York'],
    ['DTWEXBGS', 'on the Monday after the date (the next Federal Reserve business day if a holiday), 16:15 America/New_York'],
    ['DTWEXB', 'on the Monday after the date (the next Federal Reserve business day if a holiday), 16:15 America/New_York'],
    ['GSPC', 'on the date (a NYSE trading day), 16:30 America/New_York'],
    ['SPY', 'on the date (a NYSE trading day), 16:30 America/New_York'],
    ['GLD', 'on the date (a NYSE trading day), 16:30 America/New_York'],
  ])('releases %s %s, citing its publisher', (id, words) => {
    const spec = seriesSpec(id);
    expect(describeRule(spec.release)).toBe(words);
    expect(spec.release.source).toMatch(/\(.*(federalreserve\.gov|fred|cboe\.com|newyorkfed\.org|yahoo).*\)/i);
  });

  it('gives every series of the catalogue a release rule', () => {
    expect(CATALOGUE.map((s) => s.id).sort()).toEqual([
      'BAMLH0A0HYM2',
      'DGS10',
      'DGS2',
      'DTWEXB',
      'DTWEXBGS',
      'GLD',
      'GSPC',
      'RRPONTSYD',
      'SPY',
      'T10Y2Y',
      'VIXCLS',
      'WALCL',
      'WTREGEN',
    ]);
  });

  it('marks missing values by layout: empty for FRED exports, none for market files', () => {
    for (const s of CATALOGUE) expect([s.id, s.missingMarker]).toEqual([s.id, s.source === 'market' ? null : '']);
  });

  it('names unknown series in the error', () => {
    expect(() => seriesSpec('DGS30')).toThrow(/unknown series "DGS30"/);
  });
});
