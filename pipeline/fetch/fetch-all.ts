/**
 * `tradeseal pipeline fetch`: every series the catalogue needs, from its source: the FRED series from the FRED
 * API (`FRED_API_KEY`), the market series from the source `MARKET_DATA_SOURCE` names. One series at a time; each
 * file is checked and replaced on its own (./fred-series.ts, ./market.ts), so a source that fails for one series
 * leaves that file as it was and the others are still refreshed. What was written is recorded in the data
 * directory's `FETCHED.json` (./fetch-record.ts); what failed is returned, each failure with its error, so the
 * command can exit non-zero and the nightly job can say which series is late and why.
 */
import type { Config } from '../../src/core/config.js';
import { TradesealError, type ErrorCode } from '../../src/core/errors.js';
import type { FetchOptions } from '../fred.js';
import { CATALOGUE, type SeriesSpec } from '../ingest/catalogue.js';
import type { MarketSource, RequestOptions } from '../sources/market-source.js';
import { recordFetches, type FetchedFile } from './fetch-record.js';
import { refreshFredSeries } from './fred-series.js';
import { refreshMarketSeries } from './market.js';

export interface FetchFailure {
  series: string;
  file: string;
  /** The error table's code: `source_unavailable`, `source_answer_invalid`, `config_invalid`, … */
  code: ErrorCode | 'internal';
  message: string;
  /** Every problem of a refused answer (file:line and the rule), when there are any. */
  errors?: Array<{ field: string; message: string }>;
}

export interface FetchOutcome {
  fetched: FetchedFile[];
  failed: FetchFailure[];
}

export interface FetchAllOptions {
  nowMs: number;
  /** Only these series (catalogue ids); default: every series with a source. */
  series?: readonly string[];
  /** The market source; null when none is to be asked (the FRED series only). */
  market: MarketSource | null;
  fred: Pick<Config, 'fredApiKey' | 'fredBaseUrl'>;
  /** Timeouts and retries of each request. */
  request?: RequestOptions & FetchOptions;
  /** Told of each series as it is done, for the command's progress. */
  onSeries?: (spec: SeriesSpec, result: FetchedFile | FetchFailure) => void;
}

const failureOf = (spec: SeriesSpec, err: unknown): FetchFailure => {
  if (err instanceof TradesealError) {
    return { series: spec.id, file: spec.file, code: err.code, message: err.message, ...(err.errors ? { errors: err.errors } : {}) };
  }
  return { series: spec.id, file: spec.file, code: 'internal', message: (err as Error).message };
};

/** The series `fetchAll` asks for: every FRED series (with a key) and every market series (with a source). */
export function seriesToFetch(options: Pick<FetchAllOptions, 'series' | 'market' | 'fred'>): SeriesSpec[] {
  const wanted = options.series ? new Set(options.series) : null;
  return CATALOGUE.filter((s) => (wanted ? wanted.has(s.id) : true)).filter((s) =>
    s.source === 'fred' ? options.fred.fredApiKey !== null : options.market !== null,
  );
}

export async function fetchAll(dataDir: string, options: FetchAllOptions): Promise<FetchOutcome> {
  const fetched: FetchedFile[] = [];
  const failed: FetchFailure[] = [];
  // A rejected key or an unusable setting fails every series of its source alike: the source is not asked again.
  const refused = new Map<SeriesSpec['source'], FetchFailure>();
  for (const spec of seriesToFetch(options)) {
    const same = refused.get(spec.source);
    if (same) {
      const failure: FetchFailure = { ...same, series: spec.id, file: spec.file };
      failed.push(failure);
      options.onSeries?.(spec, failure);
      continue;
    }
    try {
      const result =
        spec.source === 'fred'
          ? await refreshFredSeries(options.fred, dataDir, spec, { ...options.request, nowMs: options.nowMs })
          : await refreshMarketSeries(options.market!, dataDir, spec, { nowMs: options.nowMs, ...(options.request ? { request: options.request } : {}) });
      fetched.push(result);
      options.onSeries?.(spec, result);
    } catch (err) {
      const failure = failureOf(spec, err);
      failed.push(failure);
      options.onSeries?.(spec, failure);
      if (failure.code === 'config_invalid') refused.set(spec.source, failure);
    }
  }
  if (fetched.length === 0) return { fetched, failed };
  const recorded = await recordFetches(dataDir, fetched);
  return { fetched: fetched.map((f) => recorded.files[f.file] ?? f), failed };
}
