/**
 * The Yahoo Finance source (pipeline/sources/yahoo.ts) over real HTTP against the local Yahoo server
 * (replay/vendors/yahoo-server.ts), which serves the bundled bars split-adjusted as Yahoo does: the bundled
 * history comes back as traded, exactly; a real recorded Yahoo answer (fixtures/, AAPL around its 2020 split)
 * parses into as-traded prices checked by hand; splits the server applies are undone exactly; and every
 * fault of the vendor ends in its own error naming Yahoo Finance, the symbol, the fault and the request.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseChart, yahooSource } from '../../../pipeline/sources/yahoo.js';
import type { DailyBar, MarketSource, RequestOptions } from '../../../pipeline/sources/market-source.js';
import { AnswerFault } from '../../../pipeline/sources/http.js';
import { TradesealError, type ErrorCode } from '../../../src/core/errors.js';
import { loadBundledBars } from '../../../replay/vendors/bundled-bars.js';
import { openTimestamp, startYahooServer, yahooChart, type YahooServer } from '../../../replay/vendors/yahoo-server.js';

const FIXTURE = new URL('./fixtures/yahoo-chart-aapl-2020.json', import.meta.url);
const FAST: RequestOptions = { timeoutMs: 2_000, retries: 2, backoffMs: 10, maxBackoffMs: 60_000 };

/** The shape of a chart answer, as far as the tests change it. */
interface Chart {
  chart: {
    result: Array<{
      timestamp: number[];
      events?: { dividends?: Record<string, { amount: number; date: number }> };
      indicators: { quote: Array<Record<string, Array<number | null>>> };
    }>;
  };
}

let bundled: Map<string, DailyBar[]>;
/** What the server has; tests replace a series and put it back. */
let current: Map<string, readonly DailyBar[]>;
let server: YahooServer;
let source: MarketSource;
const sleeps: number[] = [];

beforeAll(async () => {
  bundled = await loadBundledBars();
  current = new Map(bundled);
  server = await startYahooServer({ bars: (series) => current.get(series) });
  source = yahooSource({ yahooBaseUrl: server.baseUrl }, { sleep: async (ms) => void sleeps.push(ms) });
});
afterAll(() => server.close());
beforeEach(() => {
  current = new Map(bundled);
  server.requests.length = 0;
  server.requestHeaders.length = 0;
  server.override = null;
  sleeps.length = 0;
});

const between = (series: string, from: string, to: string): DailyBar[] => (bundled.get(series) ?? []).filter((b) => b.date >= from && b.date <= to);

/** The server's normal answer for SPY's bars of [from, to], to be changed by a test and served raw. */
const chartOf = (from: string, to: string): Chart =>
  yahooChart('SPY', bundled.get('SPY') ?? [], Date.parse(`${from}T00:00:00Z`) / 1000, Date.parse(`${to}T23:59:59Z`) / 1000) as Chart;
const served = (body: unknown) => ({ status: 200, body: JSON.stringify(body), headers: { 'content-type': 'application/json;charset=utf-8' } });

/** The error a fetch of SPY's bars of 2025-06-16..2025-06-20 ends in: its code, and a message naming Yahoo, SPY, the fault and the request. */
async function refused(code: ErrorCode, fault: string, options: RequestOptions = FAST, series = 'SPY'): Promise<TradesealError> {
  const err = await source.bars({ series, from: '2025-06-16', to: '2025-06-20' }, options).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TradesealError);
  const e = err as TradesealError;
  expect(e.code).toBe(code);
  const symbol = series === 'GSPC' ? '^GSPC' : series;
  expect(e.message).toContain(`Yahoo Finance, ${symbol}: `);
  expect(e.message).toContain(fault);
  expect(e.message).toContain(
    `Request: GET ${server.baseUrl}/v8/finance/chart/${encodeURIComponent(symbol)}?period1=1750032000&period2=1750464000&interval=1d`,
  );
  return e;
}

describe('the bundled history, through the Yahoo server and back', () => {
  it.each(['SPY', 'GSPC', 'GLD'])('%s: every bar as in the file, exactly', async (series) => {
    const all = bundled.get(series) ?? [];
    const bars = await source.bars({ series, from: all[0]?.date ?? '', to: all.at(-1)?.date ?? '' }, FAST);
    expect(bars.length).toBe(all.length);
    expect(bars).toEqual(all);
    expect(server.requests.length).toBe(1);
  });

  it("keeps SPY's dividends as paid: 1.761 on 2025-06-20", async () => {
    const bars = await source.bars({ series: 'SPY', from: '2025-06-16', to: '2025-06-20' }, FAST);
    // 2025-06-19 (Juneteenth) the market was closed.
    expect(bars.map((b) => b.date)).toEqual(['2025-06-16', '2025-06-17', '2025-06-18', '2025-06-20']);
    expect(bars.at(-1)).toEqual({
      date: '2025-06-20',
      open: 598.3800048828125,
      high: 599.4600219726562,
      low: 592.8599853515625,
      close: 594.280029296875,
      volume: 94051400,
      dividend: 1.761,
      split: 1,
    });
  });

  it('asks the documented query, as a browser, with ^GSPC encoded', async () => {
    await source.bars({ series: 'GSPC', from: '2025-03-03', to: '2025-03-07' }, FAST);
    const url = server.requests[0];
    expect(url?.pathname).toBe('/v8/finance/chart/%5EGSPC');
    expect(Object.fromEntries(url?.searchParams ?? [])).toEqual({
      period1: String(Date.UTC(2025, 2, 3) / 1000),
      period2: String(Date.UTC(2025, 2, 8) / 1000),
      interval: '1d',
      events: 'div,splits',
      includeAdjustedClose: 'true',
    });
    expect(server.requestHeaders[0]?.['user-agent']).toMatch(/^Mozilla\/5\.0 .* Chrome\/\d+/);
    expect(server.requestHeaders[0]?.accept).toBe('application/json');
    expect(source.describe('GSPC')).toBe(`${server.baseUrl}/v8/finance/chart/%5EGSPC?interval=1d&events=div%2Csplits&includeAdjustedClose=true`);
  });

  it('drops a bar Yahoo appends after the period (the live session)', async () => {
    server.override = () => served(chartOf('2025-06-16', '2025-06-24'));
    expect(await source.bars({ series: 'SPY', from: '2025-06-16', to: '2025-06-20' }, FAST)).toEqual(between('SPY', '2025-06-16', '2025-06-20'));
  });

  it('answers no bars for a period without a trading day', async () => {
    expect(await source.bars({ series: 'SPY', from: '2025-06-21', to: '2025-06-22' }, FAST)).toEqual([]);
  });
});

describe('the recorded AAPL answer (fixtures/yahoo-chart-aapl-2020.json)', () => {
  it("parses into as-traded bars: the split day's prices as they are, the dividend as paid, adjclose unused", async () => {
    const bars = parseChart(JSON.parse(await readFile(FIXTURE, 'utf8')), 'AAPL');
    expect(bars.map((b) => b.date)).toEqual(['2020-08-31', '2020-09-01', '2020-09-02', '2020-11-05', '2020-11-06']);
    // 1598880600 = 2020-08-31T13:30Z = 09:30 EDT. AAPL traded at its post-split prices that day (4:1 from 2020-08-31).
    expect(bars[0]).toEqual({
      date: '2020-08-31',
      open: 127.58000183105469,
      high: 131,
      low: 126,
      close: 129.0399932861328,
      volume: 225702700,
      dividend: 0,
      split: 4,
    });
    // 1604673000 = 2020-11-06T14:30Z = 09:30 EST; the close, not adjclose (115.93415069580078).
    expect(bars[4]).toEqual({
      date: '2020-11-06',
      open: 118.31999969482422,
      high: 119.19999694824219,
      low: 116.12999725341797,
      close: 118.69000244140625,
      volume: 114457900,
      dividend: 0.205,
      split: 1,
    });
  });

  it('multiplies a bar before the split back to its traded price', async () => {
    const body = JSON.parse(await readFile(FIXTURE, 'utf8')) as Chart & { chart: { result: Array<{ meta: { chartPreviousClose: number } }> } };
    const result = body.chart.result[0];
    if (!result) throw new Error('fixture without a result');
    // The trading day before the split, 2020-08-28, as Yahoo serves it: its adjusted close is the fixture's
    // meta.chartPreviousClose (124.808), used here for every price; the volume is made up, divisible by 4.
    result.timestamp.unshift(1598880600 - 3 * 86_400);
    const quote = result.indicators.quote[0] ?? {};
    for (const k of ['open', 'high', 'low', 'close']) quote[k]?.unshift(result.meta.chartPreviousClose);
    quote.volume?.unshift(100_000_004);
    const [before, splitDay] = parseChart(body, 'AAPL');
    // By hand: 124.808 × 4 = 499.232; 100 000 004 / 4 = 25 000 001.
    expect(before).toEqual({ date: '2020-08-28', open: 499.232, high: 499.232, low: 499.232, close: 499.232, volume: 25_000_001, dividend: 0, split: 1 });
    expect(splitDay?.close).toBe(129.0399932861328);
  });

  it('is refused for another symbol than the one asked for', async () => {
    const body: unknown = JSON.parse(await readFile(FIXTURE, 'utf8'));
    expect(() => parseChart(body, 'SPY')).toThrow(new AnswerFault('an answer for "AAPL"'));
  });
});

describe('splits the server applies', () => {
  /** SPY as it would have traded with a 4:1 split on 2024-02-01 and a 1:2 reverse split on 2024-03-01. */
  const withSplits = (): DailyBar[] =>
    between('SPY', '2023-12-01', '2024-03-28').map((b) => {
      const k = b.date >= '2024-03-01' ? 2 : b.date >= '2024-02-01' ? 4 : 1;
      return {
        ...b,
        open: b.open / k,
        high: b.high / k,
        low: b.low / k,
        close: b.close / k,
        volume: b.volume * k,
        dividend: b.dividend / k,
        split: b.date === '2024-02-01' ? 4 : b.date === '2024-03-01' ? 0.5 : 1,
      };
    });

  it('are served as Yahoo serves them: earlier prices divided, volumes multiplied, the split in events', async () => {
    const bars = withSplits();
    current.set('SPY', bars);
    const p1 = openTimestamp('2023-12-15');
    const response = await fetch(`${server.baseUrl}/v8/finance/chart/SPY?period1=${p1}&period2=${openTimestamp('2024-03-02')}&interval=1d&events=div,splits`);
    const body = (await response.json()) as Chart & { chart: { result: Array<{ events: { splits: Record<string, unknown> } }> } };
    const result = body.chart.result[0];
    const december15 = bars.find((b) => b.date === '2023-12-15');
    expect(result?.timestamp[0]).toBe(p1);
    // Before both splits: ÷ (4 × 0.5) = ÷ 2, as Yahoo adjusts for every later split.
    expect(result?.indicators.quote[0]?.close?.[0]).toBe((december15?.close ?? 0) / 2);
    expect(result?.indicators.quote[0]?.volume?.[0]).toBe((december15?.volume ?? 0) * 2);
    expect(result?.events?.dividends?.[p1]).toEqual({ amount: (december15?.dividend ?? 0) / 2, date: p1 });
    expect(result?.events.splits[openTimestamp('2024-02-01')]).toEqual({ date: openTimestamp('2024-02-01'), numerator: 4, denominator: 1, splitRatio: '4:1' });
    expect(result?.events.splits[openTimestamp('2024-03-01')]).toEqual({ date: openTimestamp('2024-03-01'), numerator: 1, denominator: 2, splitRatio: '1:2' });
  });

  it('are undone exactly: the bars come back as traded, dividends as paid', async () => {
    const bars = withSplits();
    current.set('SPY', bars);
    const got = await source.bars({ series: 'SPY', from: '2023-12-01', to: '2024-03-28' }, FAST);
    expect(got).toEqual(bars);
    expect(got.filter((b) => b.split !== 1).map((b) => [b.date, b.split])).toEqual([
      ['2024-02-01', 4],
      ['2024-03-01', 0.5],
    ]);
    expect(got.filter((b) => b.dividend > 0).map((b) => b.date)).toEqual(['2023-12-15', '2024-03-15']);
  });
});

describe('faults, each its own error', () => {
  it('retries a 429 (plain text), waiting what Retry-After asks, then succeeds', async () => {
    server.override = (_url, n) =>
      n < 2 ? { status: 429, body: 'Edge: Too Many Requests', headers: { 'content-type': 'text/plain', 'retry-after': '7' } } : undefined;
    expect(await source.bars({ series: 'SPY', from: '2025-06-16', to: '2025-06-20' }, FAST)).toEqual(between('SPY', '2025-06-16', '2025-06-20'));
    expect(server.requests.length).toBe(3);
    expect(sleeps).toEqual([7_000, 7_000]);
  });

  it('a 429 that lasts: source_unavailable', async () => {
    server.override = () => ({ status: 429, body: 'Too Many Requests', headers: { 'content-type': 'text/plain' } });
    await refused('source_unavailable', 'no useful answer after 3 attempts (last: HTTP 429: Too Many Requests)');
    expect(sleeps).toEqual([10, 20]);
  });

  it('a 5xx maintenance page that lasts: source_unavailable', async () => {
    server.override = () => ({
      status: 503,
      body: '<!DOCTYPE html><html><body><h1>Will be right back...</h1></body></html>',
      headers: { 'content-type': 'text/html' },
    });
    await refused('source_unavailable', 'after 3 attempts (last: HTTP 503: an HTML page ("Will be right back..."))');
  });

  it('a server that never answers: source_unavailable after the timeouts', async () => {
    server.override = () => ({ hang: true });
    await refused('source_unavailable', 'after 2 attempts (last: no answer within 100 ms)', { ...FAST, timeoutMs: 100, retries: 1 });
  });

  it('a body cut short: retried, never parsed, then source_unavailable', async () => {
    server.override = () => ({ truncate: true });
    await refused('source_unavailable', 'after 3 attempts (last: HTTP 200, but the body was cut short');
  });

  it('an HTML page with status 200: source_answer_invalid at once', async () => {
    server.override = () => ({
      status: 200,
      body: '<html><head><title>Yahoo</title></head><body>consent</body></html>',
      headers: { 'content-type': 'text/html; charset=utf-8' },
    });
    await refused(
      'source_answer_invalid',
      'the answer is not Yahoo Finance\'s data: HTTP 200 with an HTML page ("Yahoo") (text/html; charset=utf-8) where JSON was due',
    );
    expect(server.requests.length).toBe(1);
  });

  it('a bar out of order: source_answer_invalid', async () => {
    const body = chartOf('2025-06-16', '2025-06-20');
    const ts = body.chart.result[0]?.timestamp ?? [];
    [ts[1], ts[2]] = [ts[2] ?? 0, ts[1] ?? 0];
    server.override = () => served(body);
    await refused('source_answer_invalid', 'the bar of 2025-06-17 comes after the bar of 2025-06-18 (out of order)');
  });

  it('a day twice: source_answer_invalid', async () => {
    const body = chartOf('2025-06-16', '2025-06-20');
    const ts = body.chart.result[0]?.timestamp ?? [];
    ts[2] = ts[1] ?? 0;
    server.override = () => served(body);
    await refused('source_answer_invalid', 'the day 2025-06-17 appears twice');
  });

  it('a null price before the last bar: source_answer_invalid naming the day', async () => {
    const body = chartOf('2025-06-16', '2025-06-20');
    const close = body.chart.result[0]?.indicators.quote[0]?.close ?? [];
    close[1] = null;
    server.override = () => served(body);
    await refused('source_answer_invalid', 'the bar of 2025-06-17 has no close (null)');
  });

  it('a last bar without its close (the session not over): left out, nothing said', async () => {
    const body = chartOf('2025-06-16', '2025-06-20');
    const quote = body.chart.result[0]?.indicators.quote[0] ?? {};
    (quote.close ?? [])[3] = null;
    (quote.volume ?? [])[3] = null;
    server.override = () => served(body);
    expect(await source.bars({ series: 'SPY', from: '2025-06-16', to: '2025-06-20' }, FAST)).toEqual(between('SPY', '2025-06-16', '2025-06-18'));
  });

  it('a price that is not positive: source_answer_invalid', async () => {
    const body = chartOf('2025-06-16', '2025-06-20');
    (body.chart.result[0]?.indicators.quote[0]?.low ?? [])[0] = 0;
    server.override = () => served(body);
    await refused('source_answer_invalid', 'the bar of 2025-06-16 has low 0, not a positive price');
  });

  it('a dividend on a day without a bar: source_answer_invalid', async () => {
    const body = chartOf('2025-06-16', '2025-06-20');
    const juneteenth = openTimestamp('2025-06-19');
    const result = body.chart.result[0];
    if (result) result.events = { dividends: { [juneteenth]: { amount: 1.761, date: juneteenth } } };
    server.override = () => served(body);
    await refused('source_answer_invalid', 'a dividend dated 2025-06-19, a day without a bar');
  });

  it("an unknown symbol (Yahoo's 404): source_answer_invalid with Yahoo's description", async () => {
    current.delete('GLD');
    await refused('source_answer_invalid', 'HTTP 404: Not Found: No data found, symbol may be delisted', FAST, 'GLD');
    expect(server.requests.length).toBe(1);
  });

  it('Yahoo refusing the client (401, "Invalid Crumb"): source_unavailable at once, with a hint', async () => {
    server.override = () => ({ ...served({ finance: { result: null, error: { code: 'Unauthorized', description: 'Invalid Crumb' } } }), status: 401 });
    const err = await refused('source_unavailable', 'Yahoo refused the request (HTTP 401: Unauthorized: Invalid Crumb)');
    expect(err.hint).toContain('MARKET_DATA_SOURCE=eodhd');
    expect(server.requests.length).toBe(1);
  });

  it("Yahoo's own error in the chart envelope: source_answer_invalid with it", async () => {
    server.override = () =>
      served({ chart: { result: null, error: { code: 'Bad Request', description: "Data doesn't exist for startDate = 1750032000, endDate = 1750464000" } } });
    await refused('source_answer_invalid', 'Yahoo\'s error "Bad Request": "Data doesn\'t exist for startDate = 1750032000, endDate = 1750464000"');
  });

  it('a body that is not JSON: source_answer_invalid', async () => {
    server.override = () => ({ status: 200, body: '{"chart":{"result":[', headers: { 'content-type': 'application/json' } });
    await refused('source_answer_invalid', 'a body that is not JSON');
  });
});
