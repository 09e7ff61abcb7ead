/** The catalogue's date helpers and the rules it states (table-driven). */
import { describe, expect, it } from 'vitest';
import { addDays, CATALOGUE, isIsoDate, seriesSpec } from '../../../pipeline/ingest/catalogue.js';

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
  ])('%s → %s', (text, ok) => {
    expect(isIsoDate(text)).toBe(ok);
  });
});

describe('CATALOGUE', () => {
  it('has one entry per file and id', () => {
    expect(new Set(CATALOGUE.map((s) => s.id)).size).toBe(CATALOGUE.length);
    expect(new Set(CATALOGUE.map((s) => s.file)).size).toBe(CATALOGUE.length);
  });

  it('states the publication lags of the point-in-time rule', () => {
    expect(CATALOGUE.filter((s) => s.lagDays === 1).map((s) => s.id)).toEqual(['WALCL', 'WTREGEN']);
    expect(CATALOGUE.filter((s) => s.frequency === 'weekly').every((s) => s.coverDays === 7)).toBe(true);
  });

  it('marks missing values by layout: empty for FRED exports, none for yfinance', () => {
    for (const s of CATALOGUE) expect([s.id, s.missingMarker]).toEqual([s.id, s.layout === 'yfinance' ? null : '']);
  });

  it('names unknown series in the error', () => {
    expect(() => seriesSpec('DGS30')).toThrow(/unknown series "DGS30"/);
  });
});
