/**
 * The data sources of the pipeline: the market source `MARKET_DATA_SOURCE` chooses (`marketSource`), and the
 * table of every source with its vendor, key, documentation, terms, limits and coverage (`SOURCES`), from which
 * the operators' documentation is generated, so each claim carries its citation here.
 */
import type { Config } from '../../src/core/config.js';
import { TradesealError } from '../../src/core/errors.js';
import { eodhdSource } from './eodhd.js';
import type { SourceDeps } from './http.js';
import type { MarketSource } from './market-source.js';
import { yahooSource } from './yahoo.js';

export type MarketSourceConfig = Pick<Config, 'marketDataSource' | 'yahooBaseUrl' | 'eodhdApiToken' | 'eodhdBaseUrl'>;

/** The market source of the settings. `eodhd` without `EODHD_API_TOKEN` is refused with `precondition_failed`. */
export function marketSource(config: MarketSourceConfig, deps: SourceDeps = {}): MarketSource {
  if (config.marketDataSource === 'yahoo') return yahooSource(config, deps);
  if (!config.eodhdApiToken) {
    throw new TradesealError('precondition_failed', 'MARKET_DATA_SOURCE is eodhd but EODHD_API_TOKEN is not set', {
      hint: 'set EODHD_API_TOKEN to the API token of your EODHD account, or set MARKET_DATA_SOURCE=yahoo (no key)',
    });
  }
  return eodhdSource({ eodhdApiToken: config.eodhdApiToken, eodhdBaseUrl: config.eodhdBaseUrl }, deps);
}

export interface SourceInfo {
  /** The value that names it: `MARKET_DATA_SOURCE`'s for a market source, `fred` for FRED. */
  name: 'yahoo' | 'eodhd' | 'fred';
  vendor: string;
  /** What it supplies. */
  series: string;
  /** The setting that holds its key; `null`: it needs none. */
  key: 'FRED_API_KEY' | 'EODHD_API_TOKEN' | null;
  /** Whether the vendor documents and supports the API. */
  official: boolean;
  /** The vendor's documentation of the requests made, or `null` when it publishes none. */
  documentation: readonly string[] | null;
  terms: string;
  limits: string;
  coverage: string;
}

export const SOURCES: readonly SourceInfo[] = [
  {
    name: 'yahoo',
    vendor: 'Yahoo Finance (chart API, /v8/finance/chart)',
    series: 'GSPC (^GSPC), SPY, GLD: daily bars, dividends and splits in one request per symbol',
    key: null,
    official: false,
    documentation: null,
    terms:
      'https://legal.yahoo.com/us/en/yahoo/terms/otos/index.html: the data are for personal use; the API is unofficial, undocumented, without a service level, and may change or stop without notice',
    limits: 'none published; Yahoo answers 429 ("Too Many Requests") to clients it takes for bots or to bursts, which the fetch retries honouring Retry-After',
    coverage:
      "^GSPC from 1927-12-30, SPY and GLD from their first day; prices adjusted for later splits, which the source undoes from the answer's split events",
  },
  {
    name: 'eodhd',
    vendor: 'EODHD (EOD Historical Data)',
    series: 'GSPC (GSPC.INDX), SPY (SPY.US), GLD (GLD.US): raw daily bars, dividends (as paid) and splits',
    key: 'EODHD_API_TOKEN',
    official: true,
    documentation: ['https://eodhd.com/financial-apis/api-for-historical-data-and-volumes', 'https://eodhd.com/financial-apis/api-splits-dividends'],
    terms: 'https://eodhd.com/financial-apis/terms-conditions',
    limits:
      'https://eodhd.com/financial-apis/api-limits: free plan 20 calls a day; paid plans 100,000 calls a day (reset at midnight GMT) and 1,000 a minute; each of the eod, div and splits requests is one call, so a night takes 7',
    coverage: "free plan: 1 year of end-of-day history, and dividends and splits only once EODHD's support activates them; paid plans: the full history",
  },
  {
    name: 'fred',
    vendor: 'Federal Reserve Bank of St. Louis, FRED API',
    series: "the catalogue's FRED series (Treasury yields, the dollar, credit spreads, VIX, the Fed's balance sheet)",
    key: 'FRED_API_KEY',
    official: true,
    documentation: ['https://fred.stlouisfed.org/docs/api/fred/series_observations.html'],
    terms: 'https://fred.stlouisfed.org/docs/api/terms_of_use.html',
    limits:
      '120 requests a minute per key, as the FRED team told the authors of the fredr R package (sboysel/fredr, R/fredr_request.R); FRED publishes no number',
    coverage: "each series' full history, except the ICE BofA series, of which FRED serves a rolling 3 years (older rows are kept from the files)",
  },
];
