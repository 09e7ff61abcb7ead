/**
 * Choosing the market source from the settings (pipeline/sources/index.ts), and the table of sources the
 * documentation is generated from: one row per source, each with its key, terms, limits and citations.
 */
import { describe, expect, it } from 'vitest';
import { marketSource, SOURCES } from '../../../pipeline/sources/index.js';
import { loadConfig } from '../../../src/core/config.js';
import { TradesealError } from '../../../src/core/errors.js';

const TOKEN = '6f1e2d3c4b5a69.87654321';

describe('marketSource', () => {
  it("is Yahoo by default, with Yahoo's symbols and address", () => {
    const source = marketSource(loadConfig({}));
    expect(source.name).toBe('yahoo');
    expect(['GSPC', 'SPY', 'GLD'].map((s) => source.symbol(s))).toEqual(['^GSPC', 'SPY', 'GLD']);
    expect(source.describe('SPY')).toBe('https://query1.finance.yahoo.com/v8/finance/chart/SPY?interval=1d&events=div%2Csplits&includeAdjustedClose=true');
    expect(() => source.symbol('DGS10')).toThrow(RangeError);
  });

  it('is EODHD with MARKET_DATA_SOURCE=eodhd and a token, which its address never shows', () => {
    const source = marketSource(loadConfig({ MARKET_DATA_SOURCE: 'eodhd', EODHD_API_TOKEN: TOKEN }));
    expect(source.name).toBe('eodhd');
    expect(['GSPC', 'SPY', 'GLD'].map((s) => source.symbol(s))).toEqual(['GSPC.INDX', 'SPY.US', 'GLD.US']);
    expect(source.describe('GSPC')).toBe('https://eodhd.com/api/eod/GSPC.INDX?fmt=json&period=d&order=a');
  });

  it('refuses EODHD without a token, naming the setting and the alternative', () => {
    const err = (() => {
      try {
        marketSource(loadConfig({ MARKET_DATA_SOURCE: 'eodhd' }));
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(TradesealError);
    expect((err as TradesealError).code).toBe('precondition_failed');
    expect((err as TradesealError).message).toContain('EODHD_API_TOKEN is not set');
    expect((err as TradesealError).hint).toContain('MARKET_DATA_SOURCE=yahoo');
  });
});

describe('SOURCES', () => {
  it('has one row per source, the market sources by their MARKET_DATA_SOURCE value', () => {
    expect(SOURCES.map((s) => s.name)).toEqual(['yahoo', 'eodhd', 'fred']);
  });

  it('cites terms and documentation by https address, and names the setting of each key', () => {
    for (const s of SOURCES) {
      expect(s.terms).toMatch(/^https:\/\//);
      for (const url of s.documentation ?? []) expect(url).toMatch(/^https:\/\//);
      expect(s.limits.length).toBeGreaterThan(20);
      expect(s.coverage.length).toBeGreaterThan(20);
    }
    const byName = Object.fromEntries(SOURCES.map((s) => [s.name, s]));
    expect(byName.yahoo).toMatchObject({ key: null, official: false, documentation: null });
    expect(byName.yahoo?.terms).toContain('https://legal.yahoo.com/us/en/yahoo/terms/otos/index.html');
    expect(byName.eodhd).toMatchObject({ key: 'EODHD_API_TOKEN', official: true, terms: 'https://eodhd.com/financial-apis/terms-conditions' });
    expect(byName.eodhd?.limits).toContain('https://eodhd.com/financial-apis/api-limits');
    expect(byName.eodhd?.limits).toContain('20 calls a day');
    expect(byName.fred).toMatchObject({ key: 'FRED_API_KEY', terms: 'https://fred.stlouisfed.org/docs/api/terms_of_use.html' });
    expect(byName.fred?.limits).toContain('120 requests a minute');
  });
});
