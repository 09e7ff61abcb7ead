/**
 * The EODHD source (pipeline/sources/eodhd.ts) over real HTTP against the local EODHD server
 * (replay/vendors/eodhd-server.ts): the bundled history comes back exactly, with one request for the index
 * and three for an ETF, each with the documented query; dividends are read as paid (`unadjustedValue`, `value`
 * only without it) and splits from their "after/before" text; and every fault ends in its own error naming
 * EODHD, the symbol, the fault and the request, never the token.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eodhdSource } from '../../../pipeline/sources/eodhd.js';
import type { DailyBar, MarketSource, RequestOptions } from '../../../pipeline/sources/market-source.js';
import { TradesealError, type ErrorCode } from '../../../src/core/errors.js';
import { loadBundledBars } from '../../../replay/vendors/bundled-bars.js';
import { EODHD_TEST_TOKEN, startEodhdServer, type EodhdServer } from '../../../replay/vendors/eodhd-server.js';

const FAST: RequestOptions = { timeoutMs: 2_000, retries: 2, backoffMs: 10, maxBackoffMs: 60_000 };
const WRONG_TOKEN = 'f00dfeedbeef42.00000000';

let bundled: Map<string, DailyBar[]>;
let current: Map<string, readonly DailyBar[]>;
let server: EodhdServer;
let source: MarketSource;
const sleeps: number[] = [];
const sleep = async (ms: number) => void sleeps.push(ms);

beforeAll(async () => {
  bundled = await loadBundledBars();
  current = new Map(bundled);
  server = await startEodhdServer({ bars: (series) => current.get(series) });
  source = eodhdSource({ eodhdApiToken: EODHD_TEST_TOKEN, eodhdBaseUrl: server.baseUrl }, { sleep });
});
afterAll(() => server.close());
beforeEach(() => {
  current = new Map(bundled);
  server.requests.length = 0;
  server.override = null;
  server.dailyLimit = null;
  server.callsToday = 0;
  sleeps.length = 0;
});

const between = (series: string, from: string, to: string): DailyBar[] => (bundled.get(series) ?? []).filter((b) => b.date >= from && b.date <= to);
const json = (body: unknown, status = 200) => ({ status, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
/** The server's eod rows of SPY for the week of 2025-06-16, for a test to change. */
const eodRows = () =>
  between('SPY', '2025-06-16', '2025-06-20').map((b) => ({
    date: b.date,
    open: b.open,
    high: b.high,
    low: b.low,
    close: b.close as number | null,
    adjusted_close: b.close,
    volume: b.volume,
  }));
/** Replaces the answers of one endpoint. */
const onEndpoint = (endpoint: 'eod' | 'div' | 'splits', reply: ReturnType<typeof json> | { hang: true } | { truncate: true }) => {
  server.override = (url) => (url.pathname.startsWith(`/api/${endpoint}/`) ? reply : undefined);
};

/** The error of a fetch of SPY's week of 2025-06-16: its code, and a message naming EODHD, the symbol, the fault and the request, never the token. */
async function refused(
  code: ErrorCode,
  fault: string,
  options: { endpoint?: string; series?: string; src?: MarketSource; request?: RequestOptions } = {},
): Promise<TradesealError> {
  const { endpoint = 'eod', series = 'SPY', src = source, request = FAST } = options;
  const err = await src.bars({ series, from: '2025-06-16', to: '2025-06-20' }, request).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TradesealError);
  const e = err as TradesealError;
  expect(e.code).toBe(code);
  const symbol = series === 'GSPC' ? 'GSPC.INDX' : `${series}.US`;
  expect(e.message).toContain(`EODHD, ${symbol}: `);
  expect(e.message).toContain(fault);
  expect(e.message).toContain(`Request: GET ${server.baseUrl}/api/${endpoint}/${symbol}?api_token=***&fmt=json&from=2025-06-16&to=2025-06-20`);
  for (const text of [e.message, e.hint ?? '', String(e.cause ?? '')]) {
    expect(text).not.toContain(EODHD_TEST_TOKEN);
    expect(text).not.toContain(WRONG_TOKEN);
  }
  return e;
}

describe('the bundled history, through the EODHD server and back', () => {
  it.each(['SPY', 'GSPC', 'GLD'])('%s: every bar as in the file, exactly', async (series) => {
    const all = bundled.get(series) ?? [];
    const bars = await source.bars({ series, from: all[0]?.date ?? '', to: all.at(-1)?.date ?? '' }, FAST);
    expect(bars.length).toBe(all.length);
    expect(bars).toEqual(all);
  });

  it('asks the documented queries: three for an ETF, its dividend as paid (1.761 on 2025-06-20)', async () => {
    const bars = await source.bars({ series: 'SPY', from: '2025-06-16', to: '2025-06-20' }, FAST);
    expect(bars).toEqual(between('SPY', '2025-06-16', '2025-06-20'));
    expect(bars.at(-1)?.dividend).toBe(1.761);
    expect(server.requests.map((u) => u.pathname)).toEqual(['/api/eod/SPY.US', '/api/div/SPY.US', '/api/splits/SPY.US']);
    const range = { api_token: EODHD_TEST_TOKEN, fmt: 'json', from: '2025-06-16', to: '2025-06-20' };
    expect(server.requests.map((u) => Object.fromEntries(u.searchParams))).toEqual([{ ...range, period: 'd', order: 'a' }, range, range]);
  });

  it('asks only /api/eod for the index', async () => {
    await source.bars({ series: 'GSPC', from: '2025-06-16', to: '2025-06-20' }, FAST);
    expect(server.requests.map((u) => u.pathname)).toEqual(['/api/eod/GSPC.INDX']);
  });

  it('describes a series by its end-of-day address, without the token', () => {
    expect(source.describe('GLD')).toBe(`${server.baseUrl}/api/eod/GLD.US?fmt=json&period=d&order=a`);
    expect(source.symbol('GSPC')).toBe('GSPC.INDX');
  });
});

describe('actions', () => {
  /** SPY as it would have traded with a 4:1 split on 2024-02-01. */
  const withSplit = (): DailyBar[] =>
    between('SPY', '2023-12-01', '2024-03-28').map((b) => {
      const k = b.date >= '2024-02-01' ? 4 : 1;
      return {
        ...b,
        open: b.open / k,
        high: b.high / k,
        low: b.low / k,
        close: b.close / k,
        volume: b.volume * k,
        dividend: b.dividend / k,
        split: b.date === '2024-02-01' ? 4 : 1,
      };
    });

  it('reads a split from "4.000000/1.000000" and the dividend before it as paid, not EODHD\'s re-based value', async () => {
    const bars = withSplit();
    current.set('SPY', bars);
    const got = await source.bars({ series: 'SPY', from: '2023-12-01', to: '2024-03-28' }, FAST);
    expect(got).toEqual(bars);
    expect(got.find((b) => b.date === '2024-02-01')?.split).toBe(4);
    const served = (await (
      await fetch(`${server.baseUrl}/api/div/SPY.US?api_token=${EODHD_TEST_TOKEN}&fmt=json&from=2023-12-15&to=2023-12-15`)
    ).json()) as Array<{ value: number; unadjustedValue: number }>;
    expect(served[0]?.value).toBe((served[0]?.unadjustedValue ?? 0) / 4);
    expect(got.find((b) => b.date === '2023-12-15')?.dividend).toBe(served[0]?.unadjustedValue);
    const splits = await (await fetch(`${server.baseUrl}/api/splits/SPY.US?api_token=${EODHD_TEST_TOKEN}&fmt=json`)).json();
    expect(splits).toEqual([{ date: '2024-02-01', split: '4.000000/1.000000' }]);
  });

  it('reads value when unadjustedValue is absent', async () => {
    onEndpoint('div', json([{ date: '2025-06-20', value: 1.761, currency: 'USD' }]));
    expect((await source.bars({ series: 'SPY', from: '2025-06-16', to: '2025-06-20' }, FAST)).at(-1)?.dividend).toBe(1.761);
  });

  it('refuses a dividend in another currency than USD', async () => {
    onEndpoint('div', json([{ date: '2025-06-20', value: 1.5, unadjustedValue: 1.5, currency: 'EUR' }]));
    await refused('source_answer_invalid', 'the dividend of 2025-06-20 is in "EUR", not USD', { endpoint: 'div' });
  });

  it('refuses a dividend on a day without a bar', async () => {
    onEndpoint('div', json([{ date: '2025-06-19', value: 1.761, unadjustedValue: 1.761, currency: 'USD' }]));
    await refused('source_answer_invalid', "a dividend dated 2025-06-19, a day without a bar in EODHD's end-of-day answer", { endpoint: 'div' });
  });

  it('refuses a split on a day without a bar', async () => {
    onEndpoint('splits', json([{ date: '2025-06-19', split: '2.000000/1.000000' }]));
    await refused('source_answer_invalid', 'a split dated 2025-06-19, a day without a bar', { endpoint: 'splits' });
  });

  it('refuses a split it cannot read', async () => {
    onEndpoint('splits', json([{ date: '2025-06-20', split: '2:1' }]));
    await refused('source_answer_invalid', 'the split of 2025-06-20 is "2:1", not "after/before"', { endpoint: 'splits' });
  });
});

describe('faults, each its own error', () => {
  it('a rejected token (401): config_invalid naming EODHD_API_TOKEN, at once', async () => {
    const wrong = eodhdSource({ eodhdApiToken: WRONG_TOKEN, eodhdBaseUrl: server.baseUrl }, { sleep });
    const err = await refused('config_invalid', 'EODHD rejected EODHD_API_TOKEN (HTTP 401: Invalid API token)', { src: wrong });
    expect(err.hint).toContain('MARKET_DATA_SOURCE=yahoo');
    expect(server.requests.length).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('a plan without the dividends API (403, an HTML page): config_invalid saying so', async () => {
    onEndpoint('div', { status: 403, body: '<html><head><title>403 Forbidden</title></head></html>', headers: { 'content-type': 'text/html' } });
    const err = await refused(
      'config_invalid',
      'EODHD rejected EODHD_API_TOKEN (HTTP 403: an HTML page ("403 Forbidden")): the token\'s plan may not include /api/div',
      { endpoint: 'div' },
    );
    expect(err.hint).toContain('https://eodhd.com/financial-apis/api-splits-dividends');
  });

  it("the day's calls used up (402): source_unavailable at once, saying so", async () => {
    server.dailyLimit = 1;
    const err = await refused('source_unavailable', "the plan's daily API calls are used up (HTTP 402: You exceeded your daily API requests limit.", {
      endpoint: 'div',
    });
    expect(err.hint).toContain('midnight GMT');
    expect(server.requests.length).toBe(2);
    expect(sleeps).toEqual([]);
  });

  it("the day's calls used up, told with a 429: not retried either", async () => {
    onEndpoint('eod', {
      status: 429,
      body: 'You exceeded your daily API requests limit.  Please contact support@eodhistoricaldata.com',
      headers: { 'content-type': 'text/plain' },
    });
    await refused('source_unavailable', "the plan's daily API calls are used up (HTTP 429");
    expect(server.requests.length).toBe(1);
  });

  it("retries a 429 (the minute's limit), waiting what Retry-After asks, then succeeds", async () => {
    server.override = (_url, n) =>
      n === 0 ? { ...json({ message: 'Too Many Requests' }, 429), headers: { 'content-type': 'application/json', 'retry-after': '60' } } : undefined;
    expect(await source.bars({ series: 'GSPC', from: '2025-06-16', to: '2025-06-20' }, FAST)).toEqual(between('GSPC', '2025-06-16', '2025-06-20'));
    expect(sleeps).toEqual([60_000]);
  });

  it('a 429 that lasts: source_unavailable', async () => {
    server.override = () => json({ message: 'Too Many Requests' }, 429);
    await refused('source_unavailable', 'no useful answer after 3 attempts (last: HTTP 429: Too Many Requests)');
  });

  it('a 5xx that lasts: source_unavailable', async () => {
    onEndpoint('splits', { status: 500, body: '<html><body>Internal Server Error</body></html>', headers: { 'content-type': 'text/html' } });
    await refused('source_unavailable', 'after 3 attempts (last: HTTP 500: an HTML page ("Internal Server Error"))', { endpoint: 'splits' });
  });

  it('a server that never answers: source_unavailable after the timeouts', async () => {
    server.override = () => ({ hang: true });
    await refused('source_unavailable', 'after 2 attempts (last: no answer within 100 ms)', { request: { ...FAST, timeoutMs: 100, retries: 1 } });
  });

  it('a body cut short: retried, never parsed, then source_unavailable', async () => {
    onEndpoint('eod', { truncate: true });
    await refused('source_unavailable', 'after 3 attempts (last: HTTP 200, but the body was cut short');
  });

  it('an HTML page with status 200: source_answer_invalid at once', async () => {
    onEndpoint('eod', {
      status: 200,
      body: '<!DOCTYPE html><html><head><title>EODHD | Maintenance</title></head></html>',
      headers: { 'content-type': 'text/html' },
    });
    await refused('source_answer_invalid', 'the answer is not EODHD\'s data: HTTP 200 with an HTML page ("EODHD | Maintenance") where JSON was due');
    expect(server.requests.length).toBe(1);
  });

  it('a bar out of order: source_answer_invalid', async () => {
    const [a, b, c, ...rest] = eodRows();
    onEndpoint('eod', json([a, c, b, ...rest]));
    await refused('source_answer_invalid', 'the bar of 2025-06-17 comes after the bar of 2025-06-18 (out of order)');
  });

  it('a day twice: source_answer_invalid', async () => {
    const rows = eodRows();
    rows.splice(2, 0, { ...rows[1]! });
    onEndpoint('eod', json(rows));
    await refused('source_answer_invalid', 'the day 2025-06-17 appears twice');
  });

  it('a null price: source_answer_invalid naming the day', async () => {
    const rows = eodRows();
    rows[3] = { ...rows[3]!, close: null };
    onEndpoint('eod', json(rows));
    await refused('source_answer_invalid', 'the bar of 2025-06-20 has no close (null)');
  });

  it('an unknown symbol (404): source_answer_invalid', async () => {
    current.delete('GLD');
    await refused('source_answer_invalid', 'HTTP 404: Ticker Not Found.', { series: 'GLD' });
    expect(server.requests.length).toBe(1);
  });

  it('a message where the bars were due: source_answer_invalid', async () => {
    onEndpoint('eod', json({ message: 'Symbol is not supported in your plan' }));
    await refused('source_answer_invalid', 'a message "Symbol is not supported in your plan" where the array of bars was due');
  });
});
