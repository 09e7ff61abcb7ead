/**
 * EODHD as a market source (`MARKET_DATA_SOURCE=eodhd`, with `EODHD_API_TOKEN`). Three documented APIs
 * (https://eodhd.com/financial-apis/api-for-historical-data-and-volumes,
 * https://eodhd.com/financial-apis/api-splits-dividends; EodHistoricalData/EODHD-openapi `paths/*.yaml`):
 *
 *   GET {EODHD_BASE_URL}/api/eod/{SYM}?api_token=…&fmt=json&from=&to=&period=d&order=a
 *   GET {EODHD_BASE_URL}/api/div/{SYM}?api_token=…&fmt=json&from=&to=
 *   GET {EODHD_BASE_URL}/api/splits/{SYM}?api_token=…&fmt=json&from=&to=
 *
 * `/api/eod`'s OHLC are raw, "adjust[ed] neither for splits nor for dividends" (EODHD), so they are the
 * prices as traded; `adjusted_close` is never read. Whether its volume is adjusted for splits EODHD does not
 * say; it is taken as it comes. The index (`GSPC.INDX`) has no dividends or splits, so it costs one call; an
 * ETF three (the free plan allows 20 a day). A dividend or split dated on a day without a bar refuses the
 * answer (the three answers must describe the same days), unless it is after the last bar: a day not served yet.
 *
 * Errors key off the status, since EODHD's bodies are JSON (`{"message": …}`) or HTML depending on the API:
 * 401/403 is a rejected token (`config_invalid`, naming EODHD_API_TOKEN, never the token; 403 is also a plan
 * without the API); 402, or a body saying the daily limit is reached, is the plan's calls of the day used up
 * (`source_unavailable` at once: retrying cannot help before midnight GMT); 429 and 5xx are retried
 * (./http.ts); 404 is an unknown symbol (`source_answer_invalid`).
 */
import { TradesealError } from '../../src/core/errors.js';
import { isIsoDate } from '../ingest/catalogue.js';
import {
  AnswerFault,
  fault,
  isRecord,
  answerInvalid,
  describeBody,
  httpGet,
  isHtml,
  requestMessage,
  sourceUnavailable,
  type HttpAnswer,
  type HttpRequest,
  type SourceDeps,
} from './http.js';
import type { BarRequest, DailyBar, MarketSource, RequestOptions } from './market-source.js';

/** The catalogue's market series → EODHD's symbol. */
export const EODHD_SYMBOLS: Readonly<Record<string, string>> = { GSPC: 'GSPC.INDX', SPY: 'SPY.US', GLD: 'GLD.US' };

export interface EodhdConfig {
  eodhdApiToken: string;
  eodhdBaseUrl: string;
}

type Endpoint = 'eod' | 'div' | 'splits';

const SOURCE = 'EODHD';
const SECRETS = ['api_token'] as const;
const PRICES = ['open', 'high', 'low', 'close'] as const;
const DAILY_LIMIT = /exceeded your daily API requests limit|daily limit/i;

/** The request of one endpoint; without `token`, `from` and `to`, the address the data vintage shows. */
export function eodhdUrl(baseUrl: string, endpoint: Endpoint, symbol: string, token?: string, from?: string, to?: string): URL {
  const url = new URL(`/api/${endpoint}/${encodeURIComponent(symbol)}`, `${baseUrl}/`);
  if (token !== undefined) url.searchParams.set('api_token', token);
  url.searchParams.set('fmt', 'json');
  if (from !== undefined && to !== undefined) {
    url.searchParams.set('from', from);
    url.searchParams.set('to', to);
  }
  if (endpoint === 'eod') {
    url.searchParams.set('period', 'd');
    url.searchParams.set('order', 'a');
  }
  return url;
}

/** The array an answer must be, or the fault naming what it was instead (`{"message": …}`). */
function rows(body: unknown, what: string): unknown[] {
  if (Array.isArray(body)) return body;
  const message = isRecord(body) ? (body.message ?? body.error ?? body.errors) : undefined;
  return fault(`${message === undefined ? JSON.stringify(body).slice(0, 120) : `a message ${JSON.stringify(message)}`} where the array of ${what} was due`);
}

/** The date of row `i`, checked. */
function rowDate(row: unknown, i: number, what: string): string {
  const date = isRecord(row) ? row.date : undefined;
  if (typeof date !== 'string' || !isIsoDate(date)) return fault(`${what} ${i + 1} has the date ${JSON.stringify(date)}`);
  return date;
}

/** `/api/eod`'s bars, oldest first, with no actions yet. Pure; throws `AnswerFault`. */
export function parseEod(body: unknown): DailyBar[] {
  const bars: DailyBar[] = [];
  rows(body, 'bars').forEach((row, i) => {
    const date = rowDate(row, i, 'bar');
    const r = row as Record<string, unknown>;
    const before = bars.at(-1)?.date;
    if (before === date) fault(`the day ${date} appears twice`);
    if (before !== undefined && date < before) fault(`the bar of ${date} comes after the bar of ${before} (out of order)`);
    const missing = [...PRICES, 'volume'].filter((f) => r[f] === null || r[f] === undefined);
    if (missing.length > 0) fault(`the bar of ${date} has no ${missing.join(', ')} (null)`);
    for (const f of PRICES) {
      const v = r[f];
      if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) fault(`the bar of ${date} has ${f} ${JSON.stringify(v)}, not a positive price`);
    }
    if (!Number.isInteger(r.volume) || (r.volume as number) < 0) fault(`the bar of ${date} has volume ${JSON.stringify(r.volume)}, not a whole number ≥ 0`);
    bars.push({
      date,
      open: r.open as number,
      high: r.high as number,
      low: r.low as number,
      close: r.close as number,
      volume: r.volume as number,
      dividend: 0,
      split: 1,
    });
  });
  return bars;
}

/** `/api/div`'s cash dividends per ex-date, as paid. Pure; throws `AnswerFault`. */
export function parseDividends(body: unknown): Map<string, number> {
  const out = new Map<string, number>();
  rows(body, 'dividends').forEach((row, i) => {
    const date = rowDate(row, i, 'dividend');
    const r = row as Record<string, unknown>;
    if (r.currency !== undefined && r.currency !== 'USD') fault(`the dividend of ${date} is in ${JSON.stringify(r.currency)}, not USD`);
    // `unadjustedValue` is the amount as paid; `value` is re-based for the splits after the ex-date. The older
    // answers that lack unadjustedValue are read from value, which equals it as long as no split followed.
    const amount = r.unadjustedValue === undefined || r.unadjustedValue === null ? r.value : r.unadjustedValue;
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0)
      fault(`the dividend of ${date} is ${JSON.stringify(amount)}, not a positive amount`);
    if (out.has(date)) fault(`two dividends on ${date}`);
    out.set(date, amount as number);
  });
  return out;
}

/** `/api/splits`'s ratios per date, shares after per share before (`"4.000000/1.000000"` → 4). Pure; throws `AnswerFault`. */
export function parseSplits(body: unknown): Map<string, number> {
  const out = new Map<string, number>();
  rows(body, 'splits').forEach((row, i) => {
    const date = rowDate(row, i, 'split');
    const text = (row as Record<string, unknown>).split;
    const m = typeof text === 'string' ? /^(\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)$/.exec(text) : null;
    const ratio = m ? Number(m[1]) / Number(m[2]) : NaN;
    if (!Number.isFinite(ratio) || ratio <= 0) fault(`the split of ${date} is ${JSON.stringify(text)}, not "after/before"`);
    if (out.has(date)) fault(`two splits on ${date}`);
    out.set(date, ratio);
  });
  return out;
}

/**
 * The actions of [from, to] up to the last bar, each on a day with a bar: one dated after the last bar belongs to a
 * day the end-of-day answer does not have yet (a dividend announced for today's ex-date). Pure; throws `AnswerFault`.
 */
function onBarDays(actions: Map<string, number>, days: ReadonlySet<string>, from: string, to: string, what: string): Map<string, number> {
  const last = [...days].sort().at(-1) ?? '';
  const kept = new Map([...actions].filter(([date]) => date >= from && date <= to && date <= last));
  for (const date of kept.keys()) if (!days.has(date)) fault(`a ${what} dated ${date}, a day without a bar in EODHD's end-of-day answer`);
  return kept;
}

/** EODHD's `{"message": …}`, or what the body is. */
function errorText(answer: HttpAnswer): string {
  try {
    const body = JSON.parse(answer.text) as unknown;
    if (isRecord(body) && (typeof body.message === 'string' || typeof body.error === 'string')) return String(body.message ?? body.error);
  } catch {
    // HTML or plain text: described below.
  }
  return describeBody(answer);
}

/** The answers that end a fetch at once: a rejected token, and the plan's calls of the day used up. */
function refusal(request: HttpRequest, answer: HttpAnswer, endpoint: Endpoint): TradesealError | undefined {
  if (answer.status === 402 || DAILY_LIMIT.test(answer.text)) {
    return sourceUnavailable(
      request,
      `the plan's daily API calls are used up (HTTP ${answer.status}: ${errorText(answer)})`,
      'EODHD counts calls per day and resets the count at midnight GMT (https://eodhd.com/financial-apis/api-limits); the free plan allows 20, a night takes 7',
    );
  }
  if (answer.status !== 401 && answer.status !== 403) return undefined;
  const plan = answer.status === 403 ? `: the token's plan may not include /api/${endpoint}` : '';
  return new TradesealError('config_invalid', requestMessage(request, `EODHD rejected EODHD_API_TOKEN (HTTP ${answer.status}: ${errorText(answer)})${plan}`), {
    hint:
      answer.status === 403
        ? "EODHD's free plan serves dividends and splits only once its support activates them (https://eodhd.com/financial-apis/api-splits-dividends); set EODHD_API_TOKEN to a token whose plan has them, or use MARKET_DATA_SOURCE=yahoo"
        : 'set EODHD_API_TOKEN to the API token of your EODHD account, or use MARKET_DATA_SOURCE=yahoo',
  });
}

/** EODHD as a `MarketSource`. */
export function eodhdSource(config: EodhdConfig, deps: SourceDeps = {}): MarketSource {
  const symbol = (series: string): string => {
    const s = EODHD_SYMBOLS[series];
    if (!s) throw new RangeError(`${series} is not a market series (${Object.keys(EODHD_SYMBOLS).join(', ')})`);
    return s;
  };

  /** One endpoint's answer, parsed by `parse` (whose faults name this request). */
  async function get<T>(endpoint: Endpoint, sym: string, from: string, to: string, options: RequestOptions, parse: (body: unknown) => T): Promise<T> {
    const request: HttpRequest = {
      source: SOURCE,
      subject: sym,
      url: eodhdUrl(config.eodhdBaseUrl, endpoint, sym, config.eodhdApiToken, from, to),
      secretParams: SECRETS,
      headers: { accept: 'application/json' },
      errorText,
      refuse: (answer) => refusal(request, answer, endpoint),
    };
    const answer = await httpGet(request, { sleep: deps.sleep, ...options });
    if (answer.status < 200 || answer.status >= 300) throw answerInvalid(request, `HTTP ${answer.status}: ${errorText(answer)}`);
    // A 200 may carry the used-up quota's text too; an array of data never does.
    const limit = /^\s*\[/.test(answer.text) ? undefined : refusal(request, answer, endpoint);
    if (limit) throw limit;
    if (isHtml(answer)) throw answerInvalid(request, `HTTP ${answer.status} with ${describeBody(answer)} where JSON was due`);
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch (e) {
      throw answerInvalid(request, `a body that is not JSON (${(e as Error).message}): ${describeBody(answer)}`);
    }
    try {
      return parse(body);
    } catch (e) {
      if (e instanceof AnswerFault) throw answerInvalid(request, e.message);
      throw e;
    }
  }

  return {
    name: 'eodhd',
    symbol,
    describe: (series) => eodhdUrl(config.eodhdBaseUrl, 'eod', symbol(series)).toString(),
    async bars({ series, from, to }: BarRequest, options: RequestOptions = {}): Promise<DailyBar[]> {
      if (!isIsoDate(from) || !isIsoDate(to) || from > to) throw new RangeError(`a bar request needs ISO dates from ≤ to, got ${from}..${to}`);
      const sym = symbol(series);
      const bars = (await get('eod', sym, from, to, options, parseEod)).filter((b) => b.date >= from && b.date <= to);
      if (sym.endsWith('.INDX')) return bars;
      const days = new Set(bars.map((b) => b.date));
      const dividends = await get('div', sym, from, to, options, (body) => onBarDays(parseDividends(body), days, from, to, 'dividend'));
      const splits = await get('splits', sym, from, to, options, (body) => onBarDays(parseSplits(body), days, from, to, 'split'));
      return bars.map((b) => ({ ...b, dividend: dividends.get(b.date) ?? 0, split: splits.get(b.date) ?? 1 }));
    },
  };
}
