/**
 * The nightly job's commands as cron and an operator meet them: `pipeline fetch` against local servers that
 * answer as FRED and Yahoo do (every series refreshed into a directory of one's own, recorded in FETCHED.json;
 * the bundled data never written; a source down failing the command with the file as it was), and `pipeline
 * nightly` giving up at its deadline with exit 6 and the late series named, seen afterwards in `pipeline status`
 * and in `/metrics`, or stopping at once with exit 5 and one line when a key is missing (before the store is opened).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { buildApp } from '../../src/http/app.js';
import { CATALOGUE } from '../../pipeline/ingest/catalogue.js';
import { DEFAULTS as HTTP_DEFAULTS } from '../../pipeline/sources/http.js';
import { fixedProvider, loadBundledBars } from '../../replay/vendors/bundled-bars.js';
import { startFredServer, TEST_KEY, type FredServer } from '../../replay/vendors/fred-server.js';
import { startYahooServer, type YahooServer } from '../../replay/vendors/yahoo-server.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { BUNDLED_DATA } from '../helpers/macro-data.js';

const home = tempHome();
let store: TestStore;
let fred: FredServer;
let yahoo: YahooServer;
let dir: string;
let env: CliEnv;

beforeAll(async () => {
  store = await testStore();
  fred = await startFredServer(
    BUNDLED_DATA,
    CATALOGUE.filter((s) => s.source === 'fred').map((s) => s.id),
  );
  yahoo = await startYahooServer(fixedProvider(await loadBundledBars()));
  dir = await mkdtemp(path.join(os.tmpdir(), 'tradeseal-nightly-'));
  env = cliEnv(home, store.url, {
    FRED_API_KEY: TEST_KEY,
    FRED_BASE_URL: fred.baseUrl,
    YAHOO_BASE_URL: yahoo.baseUrl,
    PIPELINE_DATA_DIR: path.join(dir, 'data'),
  });
});
afterAll(async () => {
  await store?.close();
  await fred?.close();
  await yahoo?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The waits between a source's five attempts: the backoff, doubled each time (pipeline/sources/http.ts). */
const BACKOFF_WAITS = [0, 1, 2, 3].map((k) => Math.min(HTTP_DEFAULTS.backoffMs * 2 ** k, HTTP_DEFAULTS.maxBackoffMs));

/**
 * Runs `fn` (a command run in this process) with each timer of one of the backoff's lengths firing at once, and
 * says which were asked for: what the retries do is the claim, not how long the clock takes (15 s).
 */
async function withBackoffAtOnce<T>(fn: () => Promise<T>): Promise<{ result: T; waits: number[] }> {
  const real = globalThis.setTimeout;
  const waits: number[] = [];
  const atOnce = (callback: () => void, ms?: number): NodeJS.Timeout => {
    if (ms !== undefined && BACKOFF_WAITS.includes(ms)) {
      waits.push(ms);
      return real(callback, 0);
    }
    return real(callback, ms);
  };
  globalThis.setTimeout = atOnce as typeof setTimeout;
  try {
    return { result: await fn(), waits };
  } finally {
    globalThis.setTimeout = real;
  }
}

describe('pipeline fetch', () => {
  it("seeds a directory of one's own (--init), refreshes every series from its source, and records each in FETCHED.json", async () => {
    const run = await runCli(['pipeline', 'fetch', '--init'], env);
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toContain(`copied ${CATALOGUE.length + 1} bundled files into ${path.join(dir, 'data')}`);
    for (const spec of CATALOGUE) expect(run.stdout).toMatch(new RegExp(`^${spec.id} +(fred|yahoo) .* ok$`, 'm'));
    const record = JSON.parse(await readFile(path.join(dir, 'data', 'FETCHED.json'), 'utf8'));
    expect(record.files['SPY.csv']).toMatchObject({
      series: 'SPY',
      source: 'yahoo',
      source_url: `${yahoo.baseUrl}/v8/finance/chart/SPY?interval=1d&events=div%2Csplits&includeAdjustedClose=true`,
      revisions: [],
    });
    expect(JSON.stringify(record)).not.toContain(TEST_KEY);
    // The sources served the bundled rows again: every file is as it was.
    for (const spec of CATALOGUE)
      expect(await readFile(path.join(dir, 'data', spec.file), 'utf8'), spec.file).toBe(await readFile(path.join(BUNDLED_DATA, spec.file), 'utf8'));
  });

  it('never writes into the bundled data: it says what to do instead (exit 5)', async () => {
    const run = await runCli(['pipeline', 'fetch'], { ...env, PIPELINE_DATA_DIR: BUNDLED_DATA });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain(`PIPELINE_DATA_DIR is the bundled data (${BUNDLED_DATA}), which a fetch never changes`);
    expect(run.stderr).toContain('pipeline fetch --init');
  });

  it('a source down: the command fails (exit 6) naming the series and the source, and its file is as it was', async () => {
    const before = await readFile(path.join(dir, 'data', 'SPY.csv'), 'utf8');
    yahoo.override = () => ({ status: 503, body: '<html>down</html>', headers: { 'content-type': 'text/html' } });
    try {
      const { result: run, waits } = await withBackoffAtOnce(() => runCli(['pipeline', 'fetch', '--series', 'SPY'], env));
      expect(run.code, describeRun(run)).toBe(6);
      // Between its five attempts it waited as the backoff says (taken at once here): 1, 2, 4 and 8 s.
      expect(waits).toEqual(BACKOFF_WAITS);
      expect(run.stdout).toMatch(/^SPY .* source_unavailable: Yahoo Finance, SPY: no useful answer after 5 attempts/m);
      expect(run.stderr).toContain('1 of 1 series could not be refreshed (their files are as they were)');
    } finally {
      yahoo.override = null;
    }
    expect(await readFile(path.join(dir, 'data', 'SPY.csv'), 'utf8')).toBe(before);
  }, 120_000);
});

describe('pipeline nightly', () => {
  it('without FRED_API_KEY stops at once with one line saying what to set (exit 5)', async () => {
    const run = await runCli(['pipeline', 'nightly'], { ...env, FRED_API_KEY: undefined });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('FRED_API_KEY is not set, so the FRED series cannot be fetched');
    // At once: before the store is opened, so a new embedded store is not made for it.
    const fresh = path.join(home, 'no-store-yet');
    const embedded = await runCli(['pipeline', 'nightly'], { ...env, FRED_API_KEY: undefined, DATABASE_URL: undefined, TRADESEAL_HOME: fresh });
    expect(embedded.code, describeRun(embedded)).toBe(5);
    expect(embedded.stderr).toContain('FRED_API_KEY is not set, so the FRED series cannot be fetched');
    expect(existsSync(fresh)).toBe(false);
  });

  it("publishes nothing when the due day's data are not out, gives up at its deadline with exit 6 and the late series, recorded for status and metrics", async () => {
    // The bundled data end in 2025: today's due day is far beyond them, every series is late.
    const run = await runCli(['pipeline', 'nightly', '--no-fetch'], { ...env, PIPELINE_DEADLINE: '2s', PIPELINE_RETRY_SECONDS: '1' });
    expect(run.code, describeRun(run)).toBe(6);
    expect(run.stderr).toMatch(/data_late/);
    expect(run.stderr).toMatch(/WALCL\.csv lacks the row of \d{4}-\d{2}-\d{2} \(released/);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string });
    // It tried (again each second while its two seconds lasted: how many times depends on the machine), then gave up.
    expect(events[0]?.event).toBe('night_started');
    expect(events.at(-1)?.event).toBe('late');

    const status = await runCli(['pipeline', 'status', '--json'], env);
    const [night] = status.json<{ nights: Array<{ status: string; attempts: number; reason: string; late: Array<{ series: string }> }> }>().nights;
    expect(night).toMatchObject({ status: 'late' });
    expect(night!.attempts).toBeGreaterThanOrEqual(1);
    expect(night!.late.map((l) => l.series)).toContain('WALCL');
    const table = await runCli(['pipeline', 'status'], env);
    expect(table.stdout).toMatch(/due_day +status +tries +why/);
    expect(table.stdout).toMatch(/late +\d+ +\d{4}-\d{2}-\d{2} is not published: .*WALCL\.csv lacks the row/);

    const app = await buildApp(configWith({ logLevel: 'silent' }), { sql: store.sql, logger: false });
    try {
      const metrics = (await app.inject({ url: '/metrics' })).body;
      expect(metrics).toMatch(/^tradeseal_pipeline_last_night\{status="late"\} 1$/m);
      expect(Number(/^tradeseal_pipeline_days_overdue (\d+)$/m.exec(metrics)?.[1])).toBe(1);
    } finally {
      await app.close();
    }
  }, 60_000);
});
