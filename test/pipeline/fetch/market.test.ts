/**
 * Refreshing the market files (pipeline/fetch/market.ts, and `fetchAll` of pipeline/fetch/fetch-all.ts) over real
 * HTTP from the local Yahoo server (and once EODHD's), on copies of the bundled GSPC, SPY and GLD files cut at
 * 2025-06-13 while the vendor serves the bundled bars up to 2025-06-24. What an operator relies on:
 *
 * - the new days are appended and every row the file held stays byte for byte; a session still open adds
 *   nothing; SPY's ex-dividend day comes with its dividend and rewrites no earlier row (prices as traded);
 * - a vendor's revised value is written and listed (in the result and FETCHED.json), float noise is not; a day
 *   the vendor stops serving is kept and listed; an index with a dividend or a split is refused;
 * - every fault of the source is its own error, and the file on disk stays byte for byte what it was, with no
 *   temporary file left beside it.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchAll, type FetchAllOptions } from '../../../pipeline/fetch/fetch-all.js';
import { readFetchRecord, type FetchedFile } from '../../../pipeline/fetch/fetch-record.js';
import { refreshMarketSeries } from '../../../pipeline/fetch/market.js';
import { seriesSpec } from '../../../pipeline/ingest/catalogue.js';
import { eodhdSource } from '../../../pipeline/sources/eodhd.js';
import type { DailyBar, MarketSource, RequestOptions } from '../../../pipeline/sources/market-source.js';
import { yahooSource } from '../../../pipeline/sources/yahoo.js';
import { TradesealError, type ErrorCode } from '../../../src/core/errors.js';
import { barsFromCsv, BUNDLED_DIR, loadBundledBars, MARKET_SERIES } from '../../../replay/vendors/bundled-bars.js';
import { EODHD_TEST_TOKEN, startEodhdServer, type EodhdServer } from '../../../replay/vendors/eodhd-server.js';
import { openTimestamp, startYahooServer, yahooChart, type YahooServer } from '../../../replay/vendors/yahoo-server.js';

const CUT = '2025-06-13';
const SERVED_THROUGH = '2025-06-24';
/** 06:30 New York on Wednesday 2025-06-25: the close of the 24th is out. */
const NOW = Date.parse('2025-06-25T06:30:00-04:00');
/** Retries without waiting: the waits asked for are recorded in `sleeps`. */
const FAST: RequestOptions = { retries: 1, backoffMs: 1, maxBackoffMs: 5, timeoutMs: 500 };
const NO_FRED = { fredApiKey: null, fredBaseUrl: 'http://127.0.0.1:9' };

let bundledBars: Map<string, DailyBar[]>;
const bundledText = new Map<string, string>();
/** What the vendors serve; a test changes it through `serve`. */
let current: Map<string, DailyBar[]>;
let yahoo: YahooServer;
let eodhd: EodhdServer;
let source: MarketSource;
let dir: string;
const sleeps: number[] = [];

/** The lines of a file's text dated up to `last`, with its header and a final newline. */
const cut = (text: string, last: string): string =>
  `${text
    .split('\n')
    .filter((l, i) => i === 0 || (l !== '' && l.slice(0, 10) <= last))
    .join('\n')}\n`;
const fileText = (series: string): Promise<string> => readFile(path.join(dir, `${series}.csv`), 'utf8');
/** The file of `series` as each test starts with it (cut once: GSPC has 24 000 rows). */
const cutCopies = new Map<string, string>();
const cutText = (series: string): string => cutCopies.get(series) ?? '';
/** A bundled line by date. */
const line = (series: string, date: string): string => (bundledText.get(series) ?? '').split('\n').find((l) => l.startsWith(date)) ?? '';

/** Changes what the vendors serve of `series`: `change` gets the bundled bars up to SERVED_THROUGH. */
const serve = (series: string, change: (bars: DailyBar[]) => DailyBar[]): void =>
  void current.set(series, change((bundledBars.get(series) ?? []).filter((b) => b.date <= SERVED_THROUGH)));
/** `bars` with the bar of `date` changed. */
const edit = (bars: DailyBar[], date: string, change: Partial<DailyBar>): DailyBar[] => bars.map((b) => (b.date === date ? { ...b, ...change } : b));

const refresh = (series: string, nowMs = NOW, options: RequestOptions = FAST, from: MarketSource = source): Promise<FetchedFile> =>
  refreshMarketSeries(from, dir, seriesSpec(series), { nowMs, request: options });
/** `pipeline fetch` of the market series only (no FRED key), as of NOW. */
const fetchMarket = (options: Partial<FetchAllOptions> = {}) => fetchAll(dir, { nowMs: NOW, market: source, fred: NO_FRED, request: FAST, ...options });
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

beforeAll(async () => {
  bundledBars = await loadBundledBars();
  for (const series of MARKET_SERIES) {
    bundledText.set(series, await readFile(path.join(BUNDLED_DIR, `${series}.csv`), 'utf8'));
    cutCopies.set(series, cut(bundledText.get(series) ?? '', CUT));
  }
  yahoo = await startYahooServer({ bars: (series) => current.get(series) });
  eodhd = await startEodhdServer({ bars: (series) => current.get(series) });
  source = yahooSource({ yahooBaseUrl: yahoo.baseUrl }, { sleep: async (ms) => void sleeps.push(ms) });
});
afterAll(async () => void (await Promise.all([yahoo.close(), eodhd.close()])));
beforeEach(async () => {
  current = new Map();
  for (const series of MARKET_SERIES) serve(series, (bars) => bars);
  for (const server of [yahoo, eodhd]) [server.requests.length, server.override] = [0, null];
  sleeps.length = 0;
  dir = await mkdtemp(path.join(os.tmpdir(), 'tradeseal-market-'));
  for (const series of MARKET_SERIES) await writeFile(path.join(dir, `${series}.csv`), cutText(series));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** The error `p` ends in, checked to be a TradesealError of `code`. */
async function failure(p: Promise<unknown>, code: ErrorCode): Promise<TradesealError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err instanceof TradesealError ? err.code : err).toBe(code);
  return err as TradesealError;
}

/** The file of `series` is byte for byte the cut copy, and nothing else was left in the directory. */
async function untouched(series: string): Promise<void> {
  expect(await fileText(series)).toBe(cutText(series));
  expect((await readdir(dir)).sort()).toEqual(['GLD.csv', 'GSPC.csv', 'SPY.csv']);
}

describe('a refresh from the Yahoo server', () => {
  it.each(MARKET_SERIES.map((s) => [s]))(
    '%s: the new days appended, every row it held byte for byte, asked from 20 days before its last row to the newest day whose close is out',
    async (series) => {
      const [result, after] = [await refresh(series), await fileText(series)];
      expect(after.startsWith(cutText(series))).toBe(true);
      expect(barsFromCsv(series, after)).toEqual((bundledBars.get(series) ?? []).filter((b) => b.date <= SERVED_THROUGH));
      expect(result).toMatchObject({
        series,
        file: `${series}.csv`,
        source: 'yahoo',
        added: 6,
        revisions: [],
        last_date: '2025-06-24',
        fetched_at: '2025-06-25T10:30:00.000Z',
      });
      expect(result.rows).toBe(after.trimEnd().split('\n').length - 1);
      expect(result.sha256).toBe(sha256(after));
      const asked = yahoo.requests[0];
      // At 06:30 New York on 06-25 the newest close out is 06-24's: the period ends there (Yahoo's period2 is exclusive).
      expect([asked?.searchParams.get('period1'), asked?.searchParams.get('period2')]).toEqual([
        String(Date.UTC(2025, 4, 24) / 1000),
        String(Date.UTC(2025, 5, 25) / 1000),
      ]);
      expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    },
  );

  it("leaves out today's bar while the session is open (12:00 New York), and takes it from 16:30", async () => {
    const noon = await refresh('SPY', Date.parse('2025-06-24T12:00:00-04:00'));
    expect([noon.last_date, noon.added]).toEqual(['2025-06-23', 5]);
    expect(await fileText('SPY')).not.toContain('2025-06-24');
    const closed = await refresh('SPY', Date.parse('2025-06-24T16:30:00-04:00'));
    expect([closed.last_date, closed.added, closed.revisions]).toEqual(['2025-06-24', 1, []]);
  });

  it("a dividend Yahoo lists on the morning of its ex-date, before that day's bar, is not refused: the day comes with its bar", async () => {
    // 06:30 New York on 2025-06-20: the ex-date's bar is not out, but Yahoo lists the dividend (keyed by 06-20's open).
    yahoo.override = (url) => {
      if (!url.pathname.endsWith('/SPY')) return undefined;
      const bars = (bundledBars.get('SPY') ?? []).filter((b) => b.date <= '2025-06-18');
      const body = yahooChart('SPY', bars, Number(url.searchParams.get('period1')), Number(url.searchParams.get('period2')) + 2 * 86_400) as {
        chart: { result: Array<{ events?: unknown }> };
      };
      body.chart.result[0]!.events = { dividends: { [String(openTimestamp('2025-06-20'))]: { amount: 1.761, date: openTimestamp('2025-06-20') } } };
      return { status: 200, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
    };
    try {
      const result = await refresh('SPY', Date.parse('2025-06-20T06:30:00-04:00'));
      expect([result.last_date, result.revisions]).toEqual(['2025-06-18', []]);
      expect(await fileText('SPY')).not.toContain('1.761');
    } finally {
      yahoo.override = null;
    }
  });

  it("SPY's ex-dividend day 2025-06-20 arrives with its dividend 1.761, and no earlier row changes", async () => {
    await refresh('SPY');
    const after = await fileText('SPY');
    expect(after.startsWith(cutText('SPY'))).toBe(true);
    const exDay = after
      .split('\n')
      .find((l) => l.startsWith('2025-06-20'))
      ?.split(',');
    expect([exDay?.[4], exDay?.[6], exDay?.[7]]).toEqual(['594.280029296875', '1.761', '1']);
  });

  it('a revised close of a day the file holds is written, and listed in the result and in FETCHED.json', async () => {
    serve('SPY', (bars) => edit(bars, '2025-06-12', { close: 603.5 }));
    const { fetched, failed } = await fetchMarket({ series: ['SPY'] });
    expect(failed).toEqual([]);
    const revision = { date: '2025-06-12', field: 'close', was: '603.75', now: '603.5' };
    expect(fetched[0]?.revisions).toEqual([revision]);
    expect((await readFetchRecord(dir)).files['SPY.csv']?.revisions).toEqual([revision]);
    // Every other line is the bundled file's through the 24th, byte for byte.
    const revised = '2025-06-12,600.010009765625,603.75,599.52001953125,603.5,64129000,0,1';
    expect(await fileText('SPY')).toBe(cut(bundledText.get('SPY') ?? '', SERVED_THROUGH).replace(line('SPY', '2025-06-12'), revised));
    // A later fetch that changes nothing (the night's next try) keeps the revision on record, with when it came.
    const later = NOW + 600_000;
    const again = await fetchMarket({ series: ['SPY'], nowMs: later });
    expect(again.fetched[0]).toMatchObject({ fetched_at: new Date(later).toISOString(), changed_at: new Date(NOW).toISOString(), revisions: [revision] });
    expect((await readFetchRecord(dir)).files['SPY.csv']).toMatchObject({ changed_at: new Date(NOW).toISOString(), revisions: [revision] });
  });

  it("a price that differs only by float noise is no revision, and the file's text is kept", async () => {
    const held = cut(bundledText.get('SPY') ?? '', '2025-06-20').replace(line('SPY', '2025-06-20'), '2025-06-20,598.38,599.46,592.86,594.28,94051400,1.761,1');
    await writeFile(path.join(dir, 'SPY.csv'), held);
    const result = await refresh('SPY');
    expect([result.revisions, result.added]).toEqual([[], 2]);
    expect((await fileText('SPY')).startsWith(held)).toBe(true);
  });

  it('a day the vendor no longer serves is kept and recorded as a row revision', async () => {
    serve('SPY', (bars) => bars.filter((b) => b.date !== '2025-06-11'));
    const result = await refresh('SPY');
    expect(result.revisions).toEqual([{ date: '2025-06-11', field: 'row', was: line('SPY', '2025-06-11'), now: null }]);
    expect((await fileText('SPY')).startsWith(cutText('SPY'))).toBe(true);
  });

  it.each([
    ['a dividend', { dividend: 12.5 }],
    ['a split', { split: 2 }],
  ] as const)('%s served for GSPC is refused: an index has neither', async (_name, change) => {
    serve('GSPC', (bars) => edit(bars, '2025-06-20', change));
    const err = await failure(refresh('GSPC'), 'source_answer_invalid');
    expect(err.message).toContain('yahoo (^GSPC) served a dividend or a split for GSPC on 2025-06-20');
    await untouched('GSPC');
  });

  it('a missing file: precondition_failed, and the vendor is not asked', async () => {
    await rm(path.join(dir, 'GLD.csv'));
    const err = await failure(refresh('GLD'), 'precondition_failed');
    expect(err.message).toContain('GLD.csv does not exist');
    expect(yahoo.requests).toEqual([]);
    expect(await readdir(dir)).not.toContain('GLD.csv');
  });

  it("from EODHD: SPY's bundled rows through the 24th, byte for byte, its dividend among them", async () => {
    const fromEodhd = eodhdSource({ eodhdApiToken: EODHD_TEST_TOKEN, eodhdBaseUrl: eodhd.baseUrl });
    const result = await refresh('SPY', NOW, FAST, fromEodhd);
    expect(result).toMatchObject({ source: 'eodhd', added: 6, revisions: [], last_date: '2025-06-24' });
    expect(eodhd.requests.map((u) => u.pathname)).toEqual(['/api/eod/SPY.US', '/api/div/SPY.US', '/api/splits/SPY.US']);
    expect(await fileText('SPY')).toBe(cut(bundledText.get('SPY') ?? '', SERVED_THROUGH));
  });
});

describe('fetchAll of the market series', () => {
  it('fetches GSPC, SPY and GLD and records each in FETCHED.json; no FRED series without a key', async () => {
    const { fetched, failed } = await fetchMarket();
    expect(failed).toEqual([]);
    expect(fetched.map((f) => [f.series, f.added])).toEqual([
      ['GSPC', 6],
      ['SPY', 6],
      ['GLD', 6],
    ]);
    const record = await readFetchRecord(dir);
    expect(Object.keys(record.files)).toEqual(['GLD.csv', 'GSPC.csv', 'SPY.csv']);
    for (const series of MARKET_SERIES) {
      const entry = record.files[`${series}.csv`];
      expect(entry?.sha256).toBe(sha256(await fileText(series)));
      expect(entry?.source_url).toBe(source.describe(series));
    }
  });

  it('a source fault fails its series only: the others are fetched, its file stays, FETCHED.json has no entry for it', async () => {
    yahoo.override = (url) =>
      url.pathname.endsWith('/SPY') ? { status: 503, body: 'Service Unavailable', headers: { 'content-type': 'text/plain' } } : undefined;
    const { fetched, failed } = await fetchMarket();
    expect(fetched.map((f) => f.series)).toEqual(['GSPC', 'GLD']);
    expect(failed.map((f) => [f.series, f.file, f.code])).toEqual([['SPY', 'SPY.csv', 'source_unavailable']]);
    expect(await fileText('SPY')).toBe(cutText('SPY'));
    expect(Object.keys((await readFetchRecord(dir)).files)).toEqual(['GLD.csv', 'GSPC.csv']);
  });

  it('a rejected key fails every series of the source after one request, and each is told as it is done', async () => {
    const told: Array<[string, string]> = [];
    const rejected = eodhdSource({ eodhdApiToken: 'wrong.token', eodhdBaseUrl: eodhd.baseUrl });
    const { fetched, failed } = await fetchMarket({ market: rejected, onSeries: (spec, r) => void told.push([spec.id, 'code' in r ? r.code : 'fetched']) });
    expect(fetched).toEqual([]);
    expect(failed.map((f) => [f.series, f.code])).toEqual([
      ['GSPC', 'config_invalid'],
      ['SPY', 'config_invalid'],
      ['GLD', 'config_invalid'],
    ]);
    expect(eodhd.requests).toHaveLength(1);
    expect(told).toEqual([
      ['GSPC', 'config_invalid'],
      ['SPY', 'config_invalid'],
      ['GLD', 'config_invalid'],
    ]);
    for (const series of MARKET_SERIES) expect(await fileText(series)).toBe(cutText(series));
    expect(await readdir(dir)).not.toContain('FETCHED.json');
  });
});

describe('every fault of the source: its own error, and the file as it was', () => {
  const rateLimited = { status: 429, body: 'Too Many Requests', headers: { 'content-type': 'text/plain', 'retry-after': '7' } };

  it('429 with Retry-After, then an answer: retried after the wait asked for, and the file is updated', async () => {
    yahoo.override = (_url, n) => (n === 0 ? rateLimited : undefined);
    const result = await refresh('SPY', NOW, { ...FAST, maxBackoffMs: 60_000 });
    expect(sleeps).toEqual([7_000]);
    expect(yahoo.requests).toHaveLength(2);
    expect(result.added).toBe(6);
    expect(await fileText('SPY')).toBe(cut(bundledText.get('SPY') ?? '', SERVED_THROUGH));
  });

  it('429 until the retries are used up: source_unavailable', async () => {
    yahoo.override = () => rateLimited;
    const err = await failure(refresh('SPY', NOW, { ...FAST, maxBackoffMs: 10_000 }), 'source_unavailable');
    expect(err.message).toContain('no useful answer after 2 attempts (last: HTTP 429: Too Many Requests)');
    await untouched('SPY');
  });

  /** Faults served for SPY; each ends in `code` with `fault` in the message. */
  const faults: Array<[name: string, code: ErrorCode, fault: string, setup: () => void, options?: RequestOptions]> = [
    [
      'a 5xx',
      'source_unavailable',
      'after 2 attempts (last: HTTP 502',
      () => {
        yahoo.override = () => ({ status: 502, body: '<html><title>502 Bad Gateway</title></html>', headers: { 'content-type': 'text/html' } });
      },
    ],
    [
      'a timeout',
      'source_unavailable',
      'after 2 attempts (last: no answer within 100 ms)',
      () => {
        yahoo.override = () => ({ hang: true });
      },
      { ...FAST, timeoutMs: 100 },
    ],
    [
      'a truncated body',
      'source_unavailable',
      'after 2 attempts (last: HTTP 200, but the body was cut short',
      () => {
        yahoo.override = () => ({ truncate: true });
      },
    ],
    [
      'an HTML error page with status 200',
      'source_answer_invalid',
      'an HTML page ("Yahoo! - Error")',
      () => {
        yahoo.override = () => ({
          status: 200,
          body: '<!doctype html><html><head><title>Yahoo! - Error</title></head><body>Sorry</body></html>',
          headers: { 'content-type': 'text/html; charset=utf-8' },
        });
      },
    ],
    [
      'a row out of order',
      'source_answer_invalid',
      'the bar of 2025-06-18 comes after the bar of 2025-06-20 (out of order)',
      () => {
        serve('SPY', (bars) => [
          ...bars.filter((b) => b.date < '2025-06-18'),
          ...bars.filter((b) => b.date === '2025-06-18' || b.date === '2025-06-20').reverse(),
        ]);
      },
    ],
    [
      'a duplicated day',
      'source_answer_invalid',
      'the day 2025-06-18 appears twice',
      () => {
        serve('SPY', (bars) => bars.flatMap((b) => (b.date === '2025-06-18' ? [b, b] : [b])));
      },
    ],
    [
      'a zero price',
      'source_answer_invalid',
      'the bar of 2025-06-17 has close 0, not a positive price',
      () => {
        serve('SPY', (bars) => edit(bars, '2025-06-17', { close: 0 }));
      },
    ],
    [
      'a negative price',
      'source_answer_invalid',
      'the bar of 2025-06-17 has low -1, not a positive price',
      () => {
        serve('SPY', (bars) => edit(bars, '2025-06-17', { low: -1 }));
      },
    ],
  ];

  it.each(faults)('%s: %s', async (_name, code, fault, setup, options = FAST) => {
    setup();
    const err = await failure(refresh('SPY', NOW, options), code);
    expect(err.message).toContain('Yahoo Finance, SPY: ');
    expect(err.message).toContain(fault);
    await untouched('SPY');
  });

  // Bars the vendor's own checks let through, refused by the series' rules on the file as it would be written:
  // lines 8152.. are the days after the cut (2025-06-16 is line 8152, 06-17 8153, 06-20 8155).
  it.each([
    [
      'a close above the high',
      '2025-06-17',
      { close: 602.75 },
      'SPY.csv:8153',
      'close "602.75" on 2025-06-17: close is outside low 596.760009765625 to high 601.75',
    ],
    [
      'a dividend above the close',
      '2025-06-20',
      { dividend: 600 },
      'SPY.csv:8155',
      'dividend "600" on 2025-06-20: SPY dividend must be below the day\'s close 594.280029296875',
    ],
    ['a split ratio beyond 1000:1', '2025-06-16', { split: 2000 }, 'SPY.csv:8152', 'split "2000" on 2025-06-16: SPY split must be ≤ 1000'],
  ] as const)('%s: source_answer_invalid, its errors naming the file and the line', async (_name, date, change, field, message) => {
    serve('SPY', (bars) => edit(bars, date, change));
    const err = await failure(refresh('SPY'), 'source_answer_invalid');
    expect(err.message).toContain('yahoo (SPY) answered SPY with rows its rules refuse (1 problem in SPY.csv');
    expect(err.errors).toEqual([{ field, message: expect.stringContaining(message) }]);
    await untouched('SPY');
  });

  // A source that checks nothing (the interface asks each source to): the order of the days is checked before the
  // merge, the series' rules after it.
  it.each([
    ['a repeated day', (bars: DailyBar[]) => bars.flatMap((b) => (b.date === '2025-06-18' ? [b, b] : [b])), 'day 2025-06-18 after 2025-06-18'],
    [
      'a day out of order',
      (bars: DailyBar[]) => {
        const out = [...bars];
        const i = out.findIndex((b) => b.date === '2025-06-18');
        [out[i], out[i + 1]] = [out[i + 1]!, out[i]!];
        return out;
      },
      'day 2025-06-18 after 2025-06-20',
    ],
  ] as const)('%s from a source that lets it through: refused before anything is merged', async (_name, change, says) => {
    const bars = change((bundledBars.get('SPY') ?? []).filter((b) => b.date >= '2025-05-27' && b.date <= SERVED_THROUGH));
    const unchecked: MarketSource = { name: 'yahoo', symbol: (series) => series, describe: (series) => `unchecked:${series}`, bars: async () => bars };
    const err = await failure(refresh('SPY', NOW, FAST, unchecked), 'source_answer_invalid');
    expect(err.message).toContain(`served SPY's ${says}: days must come once each, oldest first. Nothing was written: SPY.csv is as it was.`);
    await untouched('SPY');
  });

  it.each([
    ['a zero price', (b: DailyBar) => [b.date === '2025-06-17' ? { ...b, close: 0 } : b], 'SPY.csv:8153', 'close "0" on 2025-06-17: SPY close must be > 0'],
    ['a negative price', (b: DailyBar) => [b.date === '2025-06-17' ? { ...b, low: -1 } : b], 'SPY.csv:8153', 'low "-1" on 2025-06-17: SPY low must be > 0'],
  ] as const)("%s from a source that lets it through: refused by the series' rules, naming the file and the line", async (_name, change, field, message) => {
    const bars = (bundledBars.get('SPY') ?? []).filter((b) => b.date >= '2025-05-27' && b.date <= SERVED_THROUGH).flatMap(change);
    const unchecked: MarketSource = { name: 'yahoo', symbol: (series) => series, describe: (series) => `unchecked:${series}`, bars: async () => bars };
    const err = await failure(refresh('SPY', NOW, FAST, unchecked), 'source_answer_invalid');
    expect(err.errors?.[0]).toEqual({ field, message: expect.stringContaining(message) });
    await untouched('SPY');
  });
});
