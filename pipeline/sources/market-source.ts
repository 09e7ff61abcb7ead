/**
 * The market-data sources behind one interface: each fetches an instrument's daily bars at the prices it traded
 * at, with the cash dividend that went ex and the split that took effect on each day, in the catalogue's
 * `ohlcv_actions` terms (../ingest/catalogue.ts). `MARKET_DATA_SOURCE` chooses one:
 *
 * - `yahoo` (./yahoo.ts): Yahoo Finance's chart API, no key;
 * - `eodhd` (./eodhd.ts): EODHD's end-of-day, dividends and splits APIs, with `EODHD_API_TOKEN`.
 *
 * A source answers with what the vendor served, checked: every bar a trading day of its own, dates strictly
 * increasing, every price a finite positive number, or it throws a `source_answer_invalid` error naming the
 * vendor, the symbol and what was wrong (an HTML page where JSON was due, a bar out of order, a repeated day).
 * Network faults, timeouts, bodies cut short, 429 and 5xx are retried with backoff (honouring `Retry-After`) and
 * end in `source_unavailable`; a rejected key in `config_invalid`. The series' own rules (bounds, rhythm) are
 * applied afterwards by the input validator, before anything is written (../fetch/market.ts).
 */

/** One trading day of an instrument, as traded. */
export interface DailyBar {
  /** The trading day, `YYYY-MM-DD` (New York). */
  date: string;
  open: number;
  high: number;
  low: number;
  close: number;
  /** Shares (or, for an index, the vendor's figure); a whole number ≥ 0. */
  volume: number;
  /** Cash dividend per share that went ex on the day; 0 on other days and for an index. */
  dividend: number;
  /** Shares after per share before for a split taking effect on the day; 1 on other days. */
  split: number;
}

export interface BarRequest {
  /** The catalogue's series id: GSPC, SPY or GLD. */
  series: string;
  /** First and last trading day wanted, inclusive. */
  from: string;
  to: string;
}

/** Retries and timeouts of one request; the defaults suit a nightly job, tests shorten them. */
export interface RequestOptions {
  /** Per attempt, ms (default 30 000). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 4). */
  retries?: number;
  /** Delay before the first retry, doubled each time up to `maxBackoffMs` (defaults 1 000 and 30 000). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Largest body read, bytes (default 64 MiB): a longer answer is refused, not read into memory. */
  maxBytes?: number;
}

export interface MarketSource {
  /** `MARKET_DATA_SOURCE`'s value for it. */
  readonly name: 'yahoo' | 'eodhd';
  /** The vendor's symbol of a series, for messages and the data vintage (`^GSPC`, `GSPC.INDX`). */
  symbol(series: string): string;
  /** Where the data of `series` come from, without any key: the data vintage's `source_url`. */
  describe(series: string): string;
  /** The bars of the request's days that the vendor has, oldest first. */
  bars(request: BarRequest, options?: RequestOptions): Promise<DailyBar[]>;
}
