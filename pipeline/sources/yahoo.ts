/**
 * Yahoo Finance's chart API as a market source (`MARKET_DATA_SOURCE=yahoo`, no key):
 *
 *   GET {YAHOO_BASE_URL}/v8/finance/chart/{symbol}?period1=&period2=&interval=1d&events=div,splits&includeAdjustedClose=true
 *
 * The API is unofficial and undocumented; its shape here is the one of real recorded answers (gadicc/
 * node-yahoo-finance2's fixtures, one in test/pipeline/sources/fixtures/) and of the clients that read it
 * (yfinance `scrapers/history.py`, yahoo-finance2 `modules/chart.ts`). What it needs:
 *
 * - `timestamp[i]` is the bar's 09:30 New York open in UTC seconds; the trading day is its date in New York,
 *   by the IANA rules of each date (`meta.gmtoffset` is the offset of today, not of the bar).
 * - OPEN, HIGH, LOW, CLOSE, VOLUME AND DIVIDENDS ARE ADJUSTED FOR LATER SPLITS. They are un-adjusted here with
 *   the answer's `events.splits` (a bar before a split of numerator/denominator: prices × the ratio, volume ÷ it,
 *   rounded to whole shares; a dividend likewise × it), so the bars are as traded. `adjclose` (also adjusted
 *   for dividends, re-based each time one goes ex) is never read.
 *   Yahoo adjusts for every split up to the moment of the request but lists only those of the period asked for:
 *   a request whose `to` is before a later split would get prices this cannot un-adjust. The nightly fetch asks
 *   up to its latest day, so a split is always inside its period; neither SPY nor GLD has split so far.
 * - `period2` is exclusive (`to` + 1 day), and Yahoo may append the live bar of a session after it: bars outside
 *   [from, to] are dropped. A last bar with a null price is the session not closed yet: it is left out, and the
 *   caller, which knows which day is due, decides whether its absence is late. A null anywhere else refuses
 *   the answer, naming the day.
 *
 * Status and content type are checked before any JSON.parse: a 429's body is plain text (`Too Many Requests`,
 * `Edge: Too Many Requests`), a maintenance page HTML. 429 and 5xx are retried (./http.ts) and end in
 * `source_unavailable`; a 200 that is an HTML page, or not the chart's shape, is `source_answer_invalid` at
 * once; 404 with `chart.error` is an unknown symbol (`source_answer_invalid`); 401/403 is Yahoo refusing this
 * client (`source_unavailable`: nothing in the settings can fix it).
 */
import type { Config } from '../../src/core/config.js';
import { isIsoDate } from '../ingest/catalogue.js';
import { addDays } from '../../src/core/dates.js';
import {
  AnswerFault,
  fault,
  isRecord,
  answerInvalid,
  describeBody,
  httpGet,
  isHtml,
  isJsonType,
  sourceUnavailable,
  type HttpAnswer,
  type HttpRequest,
  type SourceDeps,
} from './http.js';
import type { BarRequest, DailyBar, MarketSource, RequestOptions } from './market-source.js';

/** The catalogue's market series → Yahoo's symbol. */
export const YAHOO_SYMBOLS: Readonly<Record<string, string>> = { GSPC: '^GSPC', SPY: 'SPY', GLD: 'GLD' };

/** A desktop browser's User-Agent: Yahoo answers 429 to clients it takes for bots (yfinance `_http.py`). */
export const BROWSER_USER_AGENT = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Safari/537.36';

const NEW_YORK = 'America/New_York';
const SOURCE = 'Yahoo Finance';
const PRICES = ['open', 'high', 'low', 'close'] as const;
const FIELDS = [...PRICES, 'volume'] as const;

const NEW_YORK_DAY = new Intl.DateTimeFormat('en-US', { timeZone: NEW_YORK, year: 'numeric', month: '2-digit', day: '2-digit' });

/** The New York date of a Yahoo timestamp (UTC seconds), by the IANA rules Node's `Intl` carries. */
export function newYorkDate(ts: number): string {
  let year = '';
  let month = '';
  let day = '';
  for (const part of NEW_YORK_DAY.formatToParts(new Date(ts * 1000))) {
    if (part.type === 'year') year = part.value;
    else if (part.type === 'month') month = part.value;
    else if (part.type === 'day') day = part.value;
  }
  return `${year}-${month}-${day}`;
}

/** The chart request of `symbol` for the days [from, to]; without `from`/`to`, the query without a period. */
export function chartUrl(baseUrl: string, symbol: string, from?: string, to?: string): URL {
  const url = new URL(`/v8/finance/chart/${encodeURIComponent(symbol)}`, `${baseUrl}/`);
  if (from !== undefined && to !== undefined) {
    url.searchParams.set('period1', String(Date.parse(`${from}T00:00:00Z`) / 1000));
    url.searchParams.set('period2', String(Date.parse(`${addDays(to, 1)}T00:00:00Z`) / 1000));
  }
  url.searchParams.set('interval', '1d');
  url.searchParams.set('events', 'div,splits');
  url.searchParams.set('includeAdjustedClose', 'true');
  return url;
}

/** Yahoo's `{<root>: {error: {code, description}}}`, or what the body is. */
function errorText(answer: HttpAnswer): string {
  try {
    const body = JSON.parse(answer.text) as unknown;
    const root = isRecord(body) ? Object.values(body)[0] : undefined;
    const error = isRecord(root) ? root.error : undefined;
    if (isRecord(error)) return `${String(error.code)}: ${String(error.description)}`;
  } catch {
    // Plain text (a 429's "Too Many Requests") or HTML: described below.
  }
  return describeBody(answer);
}

/** A split event's ratio, shares after per share before (`numerator`/`denominator`); NaN when they are not numbers. */
const splitRatio = (event: Record<string, unknown>): number =>
  typeof event.numerator === 'number' && typeof event.denominator === 'number' ? event.numerator / event.denominator : NaN;

/** The action events of a result, by New York date: dividends' amounts or splits' ratios, each checked. */
function events(result: Record<string, unknown>, kind: 'dividends' | 'splits'): Map<string, number> {
  const out = new Map<string, number>();
  const what = kind === 'dividends' ? 'dividend' : 'split';
  const all = isRecord(result.events) ? result.events[kind] : undefined;
  if (all === undefined) return out;
  if (!isRecord(all)) return fault(`"events.${kind}" is not an object`);
  for (const [key, event] of Object.entries(all)) {
    if (!isRecord(event) || !Number.isInteger(event.date)) return fault(`"events.${kind}.${key}" has no date`);
    const date = newYorkDate(event.date as number);
    const value = kind === 'dividends' ? event.amount : splitRatio(event);
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      const shown = kind === 'dividends' ? JSON.stringify(event.amount) : `${JSON.stringify(event.numerator)}/${JSON.stringify(event.denominator)}`;
      return fault(`the ${what} of ${date} is ${shown}, not a positive number`);
    }
    if (out.has(date)) return fault(`two ${kind} on ${date}`);
    out.set(date, value);
  }
  return out;
}

/**
 * The as-traded bars of a chart answer (the parsed JSON of a 200) for `symbol`, oldest first: every check of
 * the module comment but the period's. Pure; throws `AnswerFault`.
 */
export function parseChart(body: unknown, symbol: string): DailyBar[] {
  const chart = isRecord(body) ? body.chart : undefined;
  if (!isRecord(chart)) return fault('no "chart" object');
  if (chart.error !== null && chart.error !== undefined) {
    const error = isRecord(chart.error) ? chart.error : {};
    return fault(`Yahoo's error ${JSON.stringify(error.code)}: ${JSON.stringify(error.description)}`);
  }
  const result = Array.isArray(chart.result) && chart.result.length === 1 ? chart.result[0] : undefined;
  if (!isRecord(result)) return fault('"chart.result" is not one result');
  const meta = isRecord(result.meta) ? result.meta : {};
  if (meta.symbol !== undefined && meta.symbol !== symbol) return fault(`an answer for ${JSON.stringify(meta.symbol)}`);
  if (meta.currency !== undefined && meta.currency !== null && meta.currency !== 'USD') return fault(`prices in ${JSON.stringify(meta.currency)}, not USD`);
  if (meta.exchangeTimezoneName !== undefined && meta.exchangeTimezoneName !== NEW_YORK)
    return fault(`an exchange in ${JSON.stringify(meta.exchangeTimezoneName)}, not ${NEW_YORK}`);

  const indicators = isRecord(result.indicators) ? result.indicators : {};
  const quote = Array.isArray(indicators.quote) && isRecord(indicators.quote[0]) ? indicators.quote[0] : undefined;
  // A period without a trading day: Yahoo leaves `timestamp` out and sends `quote: [{}]`.
  if (result.timestamp === undefined && quote !== undefined && FIELDS.every((f) => quote[f] === undefined)) return [];
  const timestamps = result.timestamp;
  if (!Array.isArray(timestamps) || !timestamps.every((t) => Number.isInteger(t))) return fault('"timestamp" is not an array of whole seconds');
  if (!quote) return fault('no "indicators.quote[0]"');
  const columns = FIELDS.map((f) => {
    const column = quote[f];
    if (!Array.isArray(column)) return fault(`no "indicators.quote[0].${f}" array`);
    if (column.length !== timestamps.length) return fault(`"indicators.quote[0].${f}" has ${column.length} values for ${timestamps.length} timestamps`);
    return column as unknown[];
  });

  const dates = (timestamps as number[]).map(newYorkDate);
  dates.forEach((date, i) => {
    const before = dates[i - 1];
    if (before === undefined) return;
    if (date === before) fault(`the day ${date} appears twice`);
    if (date < before) fault(`the bar of ${date} comes after the bar of ${before} (out of order)`);
  });
  const days = new Set(dates);
  const last = dates.at(-1) ?? '';
  const dividends = events(result, 'dividends');
  const splits = events(result, 'splits');
  // An action dated after the last bar belongs to a day the answer does not have yet (Yahoo lists a dividend on
  // the morning of its ex-date, before that day's bar): it is not one of these bars' actions. An action on a day
  // between them without a bar of its own is a fault.
  for (const [kind, map] of [
    ['dividend', dividends],
    ['split', splits],
  ] as const) {
    for (const date of map.keys()) if (date <= last && !days.has(date)) fault(`a ${kind} dated ${date}, a day without a bar`);
  }
  // Each bar's prices are divided by the ratios of the splits after it, those after the last bar included
  // (Yahoo adjusts for every split up to the request): multiply them back.
  let later = 1;
  for (const [date, ratio] of splits) if (date > last) later *= ratio;
  const factors = new Array<number>(dates.length);
  for (let i = dates.length - 1, after = later; i >= 0; i--) {
    factors[i] = after;
    after *= splits.get(dates[i] as string) ?? 1;
  }
  const bars: DailyBar[] = [];
  dates.forEach((date, i) => {
    const values = columns.map((c) => c[i]);
    const missing = FIELDS.filter((_, k) => values[k] === null || values[k] === undefined);
    if (missing.length > 0) {
      if (i === dates.length - 1) return; // the session's bar before its close: left to the caller
      fault(`the bar of ${date} has no ${missing.join(', ')} (null)`);
    }
    values.forEach((v, k) => {
      const name = FIELDS[k] as string;
      const ok = typeof v === 'number' && Number.isFinite(v) && (name === 'volume' ? v >= 0 : v > 0);
      if (!ok) fault(`the bar of ${date} has ${name} ${JSON.stringify(v)}, not a ${name === 'volume' ? 'volume ≥ 0' : 'positive price'}`);
    });
    const factor = factors[i] ?? 1;
    const [open, high, low, close, volume] = values as number[];
    bars.push({
      date,
      open: (open as number) * factor,
      high: (high as number) * factor,
      low: (low as number) * factor,
      close: (close as number) * factor,
      volume: Math.round((volume as number) / factor),
      dividend: (dividends.get(date) ?? 0) * factor,
      split: splits.get(date) ?? 1,
    });
  });
  return bars;
}

/** Yahoo Finance as a `MarketSource`. */
export function yahooSource(config: Pick<Config, 'yahooBaseUrl'>, deps: SourceDeps = {}): MarketSource {
  const symbol = (series: string): string => {
    const s = YAHOO_SYMBOLS[series];
    if (!s) throw new RangeError(`${series} is not a market series (${Object.keys(YAHOO_SYMBOLS).join(', ')})`);
    return s;
  };
  return {
    name: 'yahoo',
    symbol,
    describe: (series) => chartUrl(config.yahooBaseUrl, symbol(series)).toString(),
    async bars({ series, from, to }: BarRequest, options: RequestOptions = {}): Promise<DailyBar[]> {
      if (!isIsoDate(from) || !isIsoDate(to) || from > to) throw new RangeError(`a bar request needs ISO dates from ≤ to, got ${from}..${to}`);
      const request: HttpRequest = {
        source: SOURCE,
        subject: symbol(series),
        url: chartUrl(config.yahooBaseUrl, symbol(series), from, to),
        headers: { 'user-agent': BROWSER_USER_AGENT, accept: 'application/json' },
        errorText,
      };
      const answer = await httpGet(request, { sleep: deps.sleep, ...options });
      if (answer.status === 401 || answer.status === 403) {
        throw sourceUnavailable(
          request,
          `Yahoo refused the request (HTTP ${answer.status}: ${errorText(answer)})`,
          'Yahoo refuses some clients (a proxy that inspects TLS, an address it took for a bot) and may start asking for a cookie and a crumb; MARKET_DATA_SOURCE=eodhd is the keyed alternative',
        );
      }
      if (answer.status < 200 || answer.status >= 300) throw answerInvalid(request, `HTTP ${answer.status}: ${errorText(answer)}`);
      if (isHtml(answer) || !isJsonType(answer))
        throw answerInvalid(request, `HTTP ${answer.status} with ${describeBody(answer)} (${answer.headers.get('content-type')}) where JSON was due`);
      let body: unknown;
      try {
        body = JSON.parse(answer.text);
      } catch (e) {
        throw answerInvalid(request, `a body that is not JSON (${(e as Error).message}): ${describeBody(answer)}`);
      }
      try {
        return parseChart(body, request.subject).filter((b) => b.date >= from && b.date <= to);
      } catch (e) {
        if (e instanceof AnswerFault) throw answerInvalid(request, e.message);
        throw e;
      }
    },
  };
}
