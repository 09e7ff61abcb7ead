/**
 * A local Yahoo Finance chart API (`GET /v8/finance/chart/{symbol}`) answering in the shape of Yahoo's real
 * answers, as recorded in gadicc/node-yahoo-finance2's fixtures (test/pipeline/sources/fixtures/) and described
 * by yfinance and yahoo-finance2: one `chart.result` with `meta`, `timestamp` (each day's 09:30 New York open, in
 * UTC seconds), `events` (`dividends`, `splits`, keyed by the ex-day's timestamp, only when asked for with
 * `events=div,splits` and only when there are any) and `indicators` (`quote[0]` and `adjclose[0]`).
 *
 * Like Yahoo, it serves prices, volumes and dividends ADJUSTED for every split after their day (all the splits
 * the provider has at the moment, not only those of the period asked for), and an `adjclose` adjusted for
 * dividends too. An unknown symbol gets Yahoo's 404 body; `interval` other than `1d` and a period that ends
 * before it starts get Yahoo's 400. The bars come from a provider: the replay tool swaps what it returns.
 */
import { zonedInstant, zoneOffsetMs } from '../../src/core/calendars/zoned-time.js';
import { addDays } from '../../src/core/dates.js';
import type { DailyBar } from '../../pipeline/sources/market-source.js';
import { adjustedCloses, laterSplitFactors, splitFraction } from './adjustments.js';
import type { BarProvider } from './bundled-bars.js';
import { jsonReply, startVendorServer, type ListenOptions, type RawReply, type VendorServer } from './vendor-server.js';

export type { Reply } from './vendor-server.js';

const NEW_YORK = 'America/New_York';
const JSON_TYPE = 'application/json;charset=utf-8';

/** Yahoo's symbol → the catalogue's series, and what Yahoo's `meta` says of each. */
const SYMBOLS: Record<string, { series: string; exchangeName: string; fullExchangeName: string; instrumentType: string; longName: string; shortName: string }> =
  {
    '^GSPC': { series: 'GSPC', exchangeName: 'SNP', fullExchangeName: 'SNP', instrumentType: 'INDEX', longName: 'S&P 500', shortName: 'S&P 500' },
    SPY: {
      series: 'SPY',
      exchangeName: 'PCX',
      fullExchangeName: 'NYSEArca',
      instrumentType: 'ETF',
      longName: 'SPDR S&P 500 ETF Trust',
      shortName: 'SPDR S&P 500',
    },
    GLD: {
      series: 'GLD',
      exchangeName: 'PCX',
      fullExchangeName: 'NYSEArca',
      instrumentType: 'ETF',
      longName: 'SPDR Gold Trust',
      shortName: 'SPDR Gold Shares',
    },
  };

export const NOT_FOUND_BODY = { chart: { result: null, error: { code: 'Not Found', description: 'No data found, symbol may be delisted' } } };

const badRequest = (description: string): RawReply => jsonReply(400, { chart: { result: null, error: { code: 'Bad Request', description } } }, JSON_TYPE);

/** The 09:30 New York open of a trading day, in UTC seconds: Yahoo's timestamp of the day's bar. */
export const openTimestamp = (date: string): number => zonedInstant(date, '09:30', NEW_YORK) / 1000;

/** New York's offset from UTC at `ts`, in seconds, as Yahoo's `gmtoffset` (−14400 in summer, −18000 in winter). */
const offsetSeconds = (ts: number): number => zoneOffsetMs(ts * 1000, NEW_YORK) / 1000;

/** A trading period of the last day, as Yahoo's `meta.currentTradingPeriod` gives it. */
function period(date: string, from: string, to: string): Record<string, unknown> {
  const start = zonedInstant(date, from, NEW_YORK) / 1000;
  const gmtoffset = offsetSeconds(start);
  return { timezone: gmtoffset === -14_400 ? 'EDT' : 'EST', start, end: zonedInstant(date, to, NEW_YORK) / 1000, gmtoffset };
}

/**
 * The chart answer for `symbol` and the period [period1, period2) (UTC seconds), from all the bars the vendor has
 * (`bars`, as traded, oldest first). `events`: the `events` query parameter.
 */
export function yahooChart(symbol: string, bars: readonly DailyBar[], period1: number, period2: number, events = 'div,splits'): unknown {
  const info = SYMBOLS[symbol];
  if (!info) throw new RangeError(`${symbol} is not a symbol of this server`);
  const splitFactors = laterSplitFactors(bars);
  const adjusted = adjustedCloses(bars);
  // Candidates by date first (a bar's open is on its own UTC date), so only they need a time zone conversion.
  const firstDate = addDays(new Date(period1 * 1000).toISOString().slice(0, 10), -1);
  const lastDate = addDays(new Date(period2 * 1000).toISOString().slice(0, 10), 1);
  const picked: Array<{ bar: DailyBar; ts: number; factor: number; adjclose: number; previousClose: number | null }> = [];
  bars.forEach((bar, i) => {
    if (bar.date < firstDate || bar.date > lastDate) return;
    const ts = openTimestamp(bar.date);
    if (ts < period1 || ts >= period2) return;
    const previous = bars[i - 1];
    picked.push({
      bar,
      ts,
      factor: splitFactors[i] ?? 1,
      adjclose: adjusted[i] ?? bar.close,
      previousClose: previous ? previous.close / (splitFactors[i - 1] ?? 1) : null,
    });
  });
  const last = bars.at(-1);
  const lastTs = last ? openTimestamp(last.date) : period2;
  const lastDay = last?.date ?? new Date(period2 * 1000).toISOString().slice(0, 10);
  const meta = {
    currency: 'USD',
    symbol,
    exchangeName: info.exchangeName,
    fullExchangeName: info.fullExchangeName,
    instrumentType: info.instrumentType,
    firstTradeDate: bars[0] ? openTimestamp(bars[0].date) : null,
    regularMarketTime: lastTs + 23_400,
    hasPrePostMarketData: info.instrumentType !== 'INDEX',
    gmtoffset: offsetSeconds(lastTs),
    timezone: offsetSeconds(lastTs) === -14_400 ? 'EDT' : 'EST',
    exchangeTimezoneName: NEW_YORK,
    regularMarketPrice: last ? last.close / (splitFactors.at(-1) ?? 1) : null,
    longName: info.longName,
    shortName: info.shortName,
    chartPreviousClose: picked[0]?.previousClose ?? null,
    priceHint: 2,
    currentTradingPeriod: { pre: period(lastDay, '04:00', '09:30'), regular: period(lastDay, '09:30', '16:00'), post: period(lastDay, '16:00', '20:00') },
    dataGranularity: '1d',
    range: '',
    validRanges: ['1d', '5d', '1mo', '3mo', '6mo', '1y', '2y', '5y', '10y', 'ytd', 'max'],
  };
  if (picked.length === 0) return { chart: { result: [{ meta, indicators: { quote: [{}], adjclose: [{}] } }], error: null } };

  const dividends: Record<string, { amount: number; date: number }> = {};
  const splits: Record<string, { date: number; numerator: number; denominator: number; splitRatio: string }> = {};
  for (const { bar, ts, factor } of picked) {
    if (/div/.test(events) && bar.dividend > 0) dividends[ts] = { amount: bar.dividend / factor, date: ts };
    if (/split/.test(events) && bar.split !== 1) {
      const { numerator, denominator } = splitFraction(bar.split);
      splits[ts] = { date: ts, numerator, denominator, splitRatio: `${numerator}:${denominator}` };
    }
  }
  const eventsPart: Record<string, unknown> = {};
  if (Object.keys(dividends).length > 0) eventsPart.dividends = dividends;
  if (Object.keys(splits).length > 0) eventsPart.splits = splits;
  const price = (key: 'open' | 'high' | 'low' | 'close') => picked.map(({ bar, factor }) => bar[key] / factor);
  return {
    chart: {
      result: [
        {
          meta,
          timestamp: picked.map((p) => p.ts),
          ...(Object.keys(eventsPart).length > 0 ? { events: eventsPart } : {}),
          indicators: {
            quote: [
              {
                close: price('close'),
                open: price('open'),
                volume: picked.map(({ bar, factor }) => Math.round(bar.volume * factor)),
                high: price('high'),
                low: price('low'),
              },
            ],
            adjclose: [{ adjclose: picked.map((p) => p.adjclose) }],
          },
        },
      ],
      error: null,
    },
  };
}

export interface YahooServer extends VendorServer {
  /** What the server serves; the replay tool replaces it as simulated time passes. */
  provider: BarProvider;
}

export async function startYahooServer(provider: BarProvider, options: ListenOptions = {}): Promise<YahooServer> {
  let state: YahooServer | undefined;
  const answer = (url: URL): RawReply => {
    const match = /^\/v8\/finance\/chart\/([^/]+)$/.exec(url.pathname);
    if (!match?.[1]) return jsonReply(404, { finance: { result: null, error: { code: 'Not Found', description: 'HTTP 404 Not Found' } } }, JSON_TYPE);
    const symbol = decodeURIComponent(match[1]);
    const info = SYMBOLS[symbol];
    const bars = info ? state?.provider.bars(info.series) : undefined;
    if (!bars) return jsonReply(404, NOT_FOUND_BODY, JSON_TYPE);
    const interval = url.searchParams.get('interval') ?? '1d';
    if (interval !== '1d') return badRequest(`Invalid input - interval=${interval} is not supported. Valid intervals: [1d]`);
    const period1 = Number(url.searchParams.get('period1') ?? 0);
    const period2 = Number(url.searchParams.get('period2') ?? Math.floor(Date.now() / 1000));
    if (!Number.isInteger(period1) || !Number.isInteger(period2) || period1 > period2) {
      return badRequest(`Invalid input - start date cannot be after end date. startDate = ${period1}, endDate = ${period2}`);
    }
    return jsonReply(200, yahooChart(symbol, bars, period1, period2, url.searchParams.get('events') ?? ''), JSON_TYPE);
  };
  state = Object.assign(await startVendorServer(answer, options), { provider });
  return state;
}
