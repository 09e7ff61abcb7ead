/**
 * The FRED client against a local FRED-shaped server built from the bundled files (replay/vendors/): a
 * refresh writes back files that load exactly like the bundled ones; paging, retries (500, 429, timeouts, a
 * body cut short) and refusals (bad key, other 4xx) behave as documented in pipeline/fred.ts; writes are
 * atomic and merge with existing history.
 */
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { fetchAll } from '../../../pipeline/fetch/fetch-all.js';
import { readFetchRecord } from '../../../pipeline/fetch/fetch-record.js';
import { fetchSeries, type FetchOptions, type FredConfig } from '../../../pipeline/fred.js';
import { CATALOGUE, seriesSpec } from '../../../pipeline/ingest/catalogue.js';
import { openDatabase, queryRows } from '../../../pipeline/ingest/duckdb.js';
import { loadObservations } from '../../../pipeline/ingest/load.js';
import { loadConfig } from '../../../src/core/config.js';
import { TradesealError } from '../../../src/core/errors.js';
import { startFredServer, TEST_KEY, type FredServer } from '../../../replay/vendors/fred-server.js';

const DATA_DIR = fileURLToPath(new URL('../../../data/macro/', import.meta.url));
const FRED_SPECS = CATALOGUE.filter((s) => s.source === 'fred');
/** The waits the client asked for between attempts, recorded instead of waited. */
const sleeps: number[] = [];
const FAST: FetchOptions = { backoffMs: 5, maxBackoffMs: 20, timeoutMs: 5_000, sleep: async (ms) => void sleeps.push(ms) };
const json = (body: unknown): string => JSON.stringify(body);

let server: FredServer;
let config: FredConfig;
let dir: string;

beforeAll(async () => {
  server = await startFredServer(
    DATA_DIR,
    FRED_SPECS.map((s) => s.id),
  );
  config = { fredApiKey: TEST_KEY, fredBaseUrl: server.baseUrl };
});
afterAll(() => server.close());
beforeEach(async () => {
  server.requests.length = 0;
  server.override = null;
  sleeps.length = 0;
  dir = await mkdtemp(path.join(os.tmpdir(), 'tradeseal-fred-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const failure = async (p: Promise<unknown>): Promise<TradesealError> => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TradesealError);
  return err as TradesealError;
};

async function obsRows(dataDir: string): Promise<Record<string, unknown>[]> {
  const db = await openDatabase();
  try {
    await loadObservations(db.conn, dataDir, FRED_SPECS);
    return await queryRows(db.conn, 'SELECT series, date::VARCHAR AS date, value, usable_from::VARCHAR AS usable_from FROM obs ORDER BY series, date');
  } finally {
    db.close();
  }
}

/** `pipeline fetch` of FRED series only (no market source), as of now. */
const refresh = (series?: string[], options: FetchOptions = FAST) =>
  fetchAll(dir, { nowMs: Date.now(), market: null, fred: config, request: options, ...(series ? { series } : {}) });

describe('refreshing the FRED files (pipeline fetch)', () => {
  it('writes every FRED series back so it loads exactly like the bundled file, and records each in FETCHED.json', async () => {
    const { fetched, failed } = await refresh();
    expect(failed).toEqual([]);
    expect(fetched.map((r) => r.series)).toEqual(FRED_SPECS.map((s) => s.id));
    expect(server.requests.map((u) => u.searchParams.get('series_id'))).toEqual(FRED_SPECS.map((s) => s.id));
    for (const spec of FRED_SPECS) {
      // The server sent "." for the empty fields; the written file has them empty again, byte for byte.
      expect(await readFile(path.join(dir, spec.file), 'utf8')).toBe(await readFile(path.join(DATA_DIR, spec.file), 'utf8'));
    }
    expect(await obsRows(dir)).toEqual(await obsRows(DATA_DIR));
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const record = await readFetchRecord(dir);
    const walcl = await readFile(path.join(dir, 'WALCL.csv'));
    expect(record.files['WALCL.csv']).toMatchObject({
      series: 'WALCL',
      source: 'fred',
      sha256: createHash('sha256').update(walcl).digest('hex'),
      rows: 1202,
      last_date: '2025-12-24',
      added: 1202,
      revisions: [],
    });
    expect(record.files['WALCL.csv']?.source_url).toBe(`${server.baseUrl}/fred/series/observations?series_id=WALCL`);
    expect(JSON.stringify(record)).not.toContain(TEST_KEY);
  });

  it('keeps history FRED no longer serves and takes revisions, each recorded (the ICE BofA three-year window)', async () => {
    const spec = seriesSpec('BAMLH0A0HYM2');
    await copyFile(path.join(DATA_DIR, spec.file), path.join(dir, spec.file));
    const full = server.data.get(spec.id) ?? [];
    const window = full.filter((o) => o.date >= '2023-01-03').map((o) => (o.date === '2025-12-30' ? { ...o, value: '2.91' } : o));
    server.data.set(spec.id, window);
    try {
      const {
        fetched: [result],
      } = await refresh([spec.id]);
      expect(result).toMatchObject({ series: spec.id, rows: full.length, last_date: '2025-12-30', added: 0 });
      expect(result?.revisions).toEqual([{ date: '2025-12-30', field: 'value', was: '2.84', now: '2.91' }]);
      const lines = (await readFile(path.join(dir, spec.file), 'utf8')).trimEnd().split('\n');
      expect(lines[1]).toBe('1996-12-31,3.13');
      expect(lines.at(-1)).toBe('2025-12-30,2.91');
      expect(lines.length).toBe(full.length + 1);
    } finally {
      server.data.set(spec.id, full);
    }
  });

  it('validates what it would write: a bad FRED answer never replaces a file, and the other series are refreshed', async () => {
    const vix = seriesSpec('VIXCLS');
    const dgs2 = seriesSpec('DGS2');
    await copyFile(path.join(DATA_DIR, vix.file), path.join(dir, vix.file));
    const full = server.data.get(vix.id) ?? [];
    server.data.set(
      vix.id,
      full.map((o) => (o.date === '2020-03-16' ? { ...o, value: '-82.69' } : o)),
    );
    try {
      const {
        fetched,
        failed: [failure],
      } = await refresh([vix.id, dgs2.id]);
      expect(fetched.map((f) => f.series)).toEqual([dgs2.id]);
      expect(failure?.code).toBe('source_answer_invalid');
      expect(failure?.message).toContain('Nothing was written: VIXCLS.csv is as it was');
      const line = (await readFile(path.join(DATA_DIR, vix.file), 'utf8')).split('\n').findIndex((l) => l.startsWith('2020-03-16,')) + 1;
      expect(failure?.errors).toEqual([
        { field: `VIXCLS.csv:${line}`, message: 'value "-82.69" on 2020-03-16: VIXCLS must be ≥ 5 (VIX has never closed below 9.14)' },
      ]);
      expect(await readFile(path.join(dir, vix.file), 'utf8')).toBe(await readFile(path.join(DATA_DIR, vix.file), 'utf8'));
      expect(await readFile(path.join(dir, dgs2.file), 'utf8')).toBe(await readFile(path.join(DATA_DIR, dgs2.file), 'utf8'));
      expect((await readdir(dir)).sort()).toEqual([dgs2.file, 'FETCHED.json', vix.file].sort());
    } finally {
      server.data.set(vix.id, full);
    }
  });

  it('leaves the existing file untouched when FRED fails, and says why', async () => {
    const spec = seriesSpec('VIXCLS');
    await writeFile(path.join(dir, spec.file), 'date,value\n2020-01-02,12.47\n');
    server.override = () => ({ status: 503, body: json({ error_code: 503, error_message: 'Service Unavailable' }) });
    const { fetched, failed } = await refresh([spec.id], { ...FAST, retries: 1 });
    expect(fetched).toEqual([]);
    expect(failed.map((f) => [f.series, f.code])).toEqual([[spec.id, 'source_unavailable']]);
    expect(await readdir(dir)).toEqual([spec.file]);
    expect(await readFile(path.join(dir, spec.file), 'utf8')).toBe('date,value\n2020-01-02,12.47\n');
  });
});

describe('fetchSeries', () => {
  it('follows the pages and sends the documented query', async () => {
    const series = await fetchSeries(config, 'DGS10', { ...FAST, pageSize: 1000, observationStart: '1990-01-01' });
    const expected = (server.data.get('DGS10') ?? []).filter((o) => o.date >= '1990-01-01');
    expect(series.observations).toEqual(expected.map(({ date, value }) => ({ date, value })));
    expect(server.requests.length).toBe(Math.ceil(expected.length / 1000));
    const first = server.requests[0];
    expect(first?.pathname).toBe('/fred/series/observations');
    expect(Object.fromEntries(first?.searchParams ?? [])).toMatchObject({
      series_id: 'DGS10',
      api_key: TEST_KEY,
      file_type: 'json',
      observation_start: '1990-01-01',
      offset: '0',
    });
    // New Year's Day 1990's (empty) row is released with the next Fed business day, Tuesday 1990-01-02, and first used that day.
    expect(series.rows.find((r) => r.date === '1990-01-01')).toEqual({ series: 'DGS10', date: '1990-01-01', value: null, usable_from: '1990-01-02' });
  });

  it('fails at once with a clear error when FRED rejects the key (400), without showing the key', async () => {
    const err = await failure(fetchSeries({ ...config, fredApiKey: 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz' }, 'WALCL', FAST));
    expect(err.code).toBe('config_invalid');
    expect(err.message).toContain('FRED rejected FRED_API_KEY (HTTP 400: Bad Request.  The value for variable api_key is not registered.');
    expect(err.message).toContain('WALCL');
    expect(err.message).toContain('api_key=***');
    expect(err.message).not.toContain('zzzzzzzz');
    expect(server.requests.length).toBe(1);
  });

  it('treats a 403 as a rejected key too', async () => {
    server.override = () => ({ status: 403, body: 'Forbidden', headers: { 'content-type': 'text/plain' } });
    const err = await failure(fetchSeries(config, 'WALCL', FAST));
    expect(err.code).toBe('config_invalid');
    expect(server.requests.length).toBe(1);
  });

  it('does not retry another 4xx', async () => {
    server.override = () => ({ status: 404, body: json({ error_code: 404, error_message: 'Not Found' }) });
    const err = await failure(fetchSeries(config, 'WALCL', FAST));
    expect(err.code).toBe('fred_request_rejected');
    expect(err.message).toContain('HTTP 404 Not Found');
    expect(err.message).toContain('api_key=***');
    expect(err.message).not.toContain(TEST_KEY);
    expect(server.requests.length).toBe(1);
  });

  it('retries a 500 and then succeeds', async () => {
    server.override = (_url, n) => (n === 0 ? { status: 500, body: json({ error_code: 500, error_message: 'Internal Server Error' }) } : undefined);
    const series = await fetchSeries(config, 'WTREGEN', FAST);
    expect(server.requests.length).toBe(2);
    expect(series.observations.length).toBe(server.data.get('WTREGEN')?.length);
  });

  it('retries a 429 (rate limit) honouring Retry-After', async () => {
    server.override = (_url, n) =>
      n < 2
        ? { status: 429, headers: { 'retry-after': '1' }, body: json({ error_code: 429, error_message: 'Too Many Requests.  Exceeded Rate Limit' }) }
        : undefined;
    await fetchSeries(config, 'T10Y2Y', { ...FAST, maxBackoffMs: 5_000 });
    expect(server.requests.length).toBe(3);
    // Retry-After asks for 1 000 ms, longer than the backoff (5, then 10): it is waited.
    expect(sleeps).toEqual([1_000, 1_000]);
  });

  it('gives up after the retries with source_unavailable', async () => {
    server.override = () => ({ status: 502, body: 'Bad Gateway', headers: { 'content-type': 'text/plain' } });
    const err = await failure(fetchSeries(config, 'DGS2', { ...FAST, retries: 2 }));
    expect(err.code).toBe('source_unavailable');
    expect(err.message).toContain('FRED, DGS2: no useful answer after 3 attempts (last: HTTP 502: Bad Gateway)');
    expect(err.message).toContain('api_key=***');
    expect(err.message).not.toContain(TEST_KEY);
    expect(server.requests.length).toBe(3);
    expect(sleeps).toEqual([5, 10]);
  });

  it('retries a body cut short instead of parsing it', async () => {
    server.override = (_url, n) => (n === 0 ? { truncate: true } : undefined);
    const series = await fetchSeries(config, 'DGS2', FAST);
    expect(server.requests.length).toBe(2);
    expect(series.observations.length).toBe(server.data.get('DGS2')?.length);
  });

  it("refuses a 200 that is not JSON (a proxy's HTML page) with source_answer_invalid", async () => {
    server.override = () => ({ status: 200, body: '<html><head><title>Access denied</title></head></html>', headers: { 'content-type': 'text/html' } });
    const err = await failure(fetchSeries(config, 'DGS2', FAST));
    expect(err.code).toBe('source_answer_invalid');
    expect(err.message).toContain('an HTML page ("Access denied")');
    expect(server.requests.length).toBe(1);
  });

  it('times out a silent server and retries', async () => {
    server.override = (_url, n) => (n === 0 ? { hang: true } : undefined);
    const series = await fetchSeries(config, 'VIXCLS', { ...FAST, timeoutMs: 200 });
    expect(server.requests.length).toBe(2);
    expect(series.observations.length).toBeGreaterThan(9000);
  });

  it('refuses an answer the parser refuses', async () => {
    server.override = () => ({ status: 200, body: json({ observations: [{ date: '2020-01-02', value: 'n/a' }] }) });
    const err = await failure(fetchSeries(config, 'DGS10', FAST));
    expect(err.code).toBe('fred_request_rejected');
    expect(err.message).toContain('"n/a"');
  });

  it('needs a key and a FRED series', async () => {
    expect((await failure(fetchSeries({ ...config, fredApiKey: null }, 'DGS10', FAST))).code).toBe('precondition_failed');
    await expect(fetchSeries(config, 'GSPC', FAST)).rejects.toThrow(/not a FRED series/);
    expect(server.requests.length).toBe(0);
  });
});

describe('FRED settings (src/core/config.ts)', () => {
  it('default to no key, the public FRED address and data/macro', () => {
    const c = loadConfig({});
    expect(c.fredApiKey).toBeNull();
    expect(c.fredBaseUrl).toBe('https://api.stlouisfed.org');
    expect(path.isAbsolute(c.pipelineDataDir)).toBe(true);
    expect(c.pipelineDataDir.endsWith(path.join('data', 'macro'))).toBe(true);
  });

  it('read a key, a base address without its trailing slash, and a data directory', () => {
    const c = loadConfig({ FRED_API_KEY: TEST_KEY, FRED_BASE_URL: 'http://127.0.0.1:8099/', PIPELINE_DATA_DIR: '/srv/macro' });
    expect(c).toMatchObject({ fredApiKey: TEST_KEY, fredBaseUrl: 'http://127.0.0.1:8099', pipelineDataDir: '/srv/macro' });
  });

  it('refuse a key FRED would refuse and a base address that is not http(s), naming both', () => {
    const err = (() => {
      try {
        loadConfig({ FRED_API_KEY: 'ABC-not-a-key', FRED_BASE_URL: 'ftp://fred' });
        return null;
      } catch (e) {
        return e as TradesealError;
      }
    })();
    expect(err?.code).toBe('config_invalid');
    expect(err?.errors?.map((e) => e.field)).toEqual(['FRED_API_KEY', 'FRED_BASE_URL']);
  });
});
