/**
 * What `npm start` does before it serves (src/cli/start-data.ts): with the sources configured and a data
 * directory of one's own it runs one night, tried once: it fetches every series and publishes the day due only
 * when every series has its rows, else nothing, warning which series is late; without a key it says in one line
 * what to set and, on an empty store, runs the pipeline on the files as they are; it never fetches into the
 * bundled data. The sources are local servers answering as FRED and Yahoo do, with data through mid-2009 (a short
 * history keeps the runs short); the directory starts at the end of March. (The night that publishes, on data
 * that are current, is the replayed month's: test/replay/month.test.ts.)
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, type Config } from '../../src/core/config.js';
import { prepareData } from '../../src/cli/start-data.js';
import { CATALOGUE } from '../../pipeline/ingest/catalogue.js';
import { recentNights } from '../../src/signals/nightly/night-store.js';
import { publishedRange } from '../../src/signals/publish/published.js';
import { fixedProvider, loadBundledBars } from '../../replay/vendors/bundled-bars.js';
import { startFredServer, TEST_KEY, type FredServer } from '../../replay/vendors/fred-server.js';
import { startYahooServer, type YahooServer } from '../../replay/vendors/yahoo-server.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { BUNDLED_DATA, macroDataThrough } from '../helpers/macro-data.js';

let fred: FredServer;
let yahoo: YahooServer;
let work: string;

beforeAll(async () => {
  const served = await macroDataThrough('2009-06-30');
  fred = await startFredServer(
    served,
    CATALOGUE.filter((s) => s.source === 'fred').map((s) => s.id),
  );
  yahoo = await startYahooServer(fixedProvider(await loadBundledBars(served)));
  work = await mkdtemp(path.join(os.tmpdir(), 'tradeseal-start-'));
});
afterAll(async () => {
  await fred?.close();
  await yahoo?.close();
  await rm(work, { recursive: true, force: true });
});

/** Lines said and warned, and the settings of a start. */
function start(overrides: Partial<Config>) {
  const said: string[] = [];
  const warned: string[] = [];
  const settings = configWith({ logLevel: 'silent', fredBaseUrl: fred.baseUrl, yahooBaseUrl: yahoo.baseUrl, ...overrides });
  return { said, warned, settings, out: { say: (l: string) => said.push(l), warn: (l: string) => warned.push(l), runner: undefined } };
}

describe('npm start, before it serves', () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await testStore();
  });
  afterAll(async () => store?.close());

  it("with FRED_API_KEY and a directory of one's own: fetches every series, then publishes nothing when the day due lacks rows, warning which series are late", async () => {
    const dir = await macroDataThrough('2009-03-31');
    const { said, warned, settings, out } = start({ fredApiKey: TEST_KEY, pipelineDataDir: dir });
    const summary = await prepareData(settings, store.sql, out, true);
    expect(said[0]).toBe(`fetching every series into ${dir} (FRED, yahoo)`);
    expect(said[1]).toMatch(/^SPY +yahoo +\d+ +0 +\d+ +2009-06-30 +ok$/m);
    expect(await readFile(path.join(dir, 'FETCHED.json'), 'utf8')).toContain('"GSPC.csv"');
    // The sources end in 2009: today's day due lacks every series' rows, so nothing is published, and the start says why.
    expect(summary).toBeNull();
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatch(/^nothing new was published \(data_late\): \d{4}-\d{2}-\d{2} is not published: WALCL\.csv lacks the row of 2009-07-01/);
    expect((await publishedRange(store.sql)).days).toBe(0);
    const [night] = await recentNights(store.sql, 1);
    expect(night).toMatchObject({ status: 'late', attempts: 1 });
  }, 120_000);
});

describe('npm start without the keys', () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await testStore();
  });
  afterAll(async () => store?.close());

  it('says in one line what to set, fetches nothing, and on an empty store runs the pipeline on the files as they are', async () => {
    yahoo.requests.length = 0;
    const dir = await macroDataThrough('2009-03-31');
    const before = await readFile(path.join(dir, 'SPY.csv'), 'utf8');
    const { said, settings, out } = start({ fredApiKey: null, pipelineDataDir: dir });
    const summary = await prepareData(settings, store.sql, out, true);
    expect(said[0]).toBe(
      'not fetching: FRED_API_KEY is not set, so the FRED series cannot be fetched; set it and `npm start` fetches every series before it serves (docs/operations.md, "Running it every day")',
    );
    expect(said[1]).toBe(`nothing is published yet: running the pipeline on ${dir} first`);
    expect(summary?.last_day).toBe('2009-03-31');
    expect(await readFile(path.join(dir, 'SPY.csv'), 'utf8')).toBe(before);
    expect(yahoo.requests).toHaveLength(0);
  }, 120_000);

  it('with a key but the bundled data: never fetches into them, and says what to set', async () => {
    yahoo.requests.length = 0;
    const { said, settings, out } = start({ fredApiKey: TEST_KEY, pipelineDataDir: BUNDLED_DATA });
    // Something is published already (the test above): the start serves it.
    expect(await prepareData(settings, store.sql, out, true)).toBeNull();
    expect(said).toEqual([
      'not fetching: PIPELINE_DATA_DIR is the bundled data/macro, which a fetch never changes; set it to a directory of your own (`tradeseal pipeline fetch --init` seeds it) and `npm start` fetches before it serves',
    ]);
    expect(yahoo.requests).toHaveLength(0);
  });
});
