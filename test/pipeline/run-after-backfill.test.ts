/**
 * A history that began as a backfill, extended by a default run, against a real store: the shared published
 * history (`--as-of 2009-03-31 --publish`, seed 7) ends on a month's last day, so the incremental run's first
 * new day is a refit, which warm-starts from the stored fit alone. It must publish exactly the numbers a full
 * run over the same files and seed publishes: the full run after it has nothing to rewrite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/signals/publish/run.js';
import type { Sql } from '../../src/store/driver.js';
import { publishedRun, testStore, type TestStore } from '../helpers/db.js';
import { macroDataThrough } from '../helpers/macro-data.js';
import { PUBLISHED_HISTORY } from '../setup/published-history.js';

let store: TestStore;

const publishedDays = (sql: Sql) => sql`select * from signal_days order by date`;

beforeAll(async () => {
  expect(PUBLISHED_HISTORY).toMatchObject({ asOf: '2009-03-31', publish: true, seed: 7 });
  store = await testStore({ history: 'published' });
}, 600_000);
afterAll(async () => store?.close());

describe('a history published as a backfill, extended by a default run', () => {
  it('gets exactly the numbers a full run over the same files publishes, from the refit on its first new day on', async () => {
    const backfill = await publishedRun();
    expect(backfill.last_day).toBe('2009-03-31');
    const options = { dataDir: await macroDataThrough('2009-06-30'), asOf: null, seed: 7 };
    const incremental = await runPipeline(store.sql, options);
    expect(incremental).toMatchObject({ mode: 'incremental', first_day: '2009-04-01', last_day: '2009-06-30', days: 63 });
    const fits = await store.sql`select fit_date::text as d from model_fits where run_id = ${incremental.run_id} order by fit_date`;
    expect(fits.map((f) => f.d)).toEqual(['2009-04-01', '2009-05-01', '2009-06-01']);
    const extended = await publishedDays(store.sql);

    // Without a confirmation a full run that would rewrite a published day is refused: it must have none to rewrite.
    const full = await runPipeline(store.sql, { ...options, full: true });
    expect(full.plan).toMatchObject({ mode: 'full', added: 0, changed: 0, changed_first: null, removed: 0, unchanged: extended.length });
    const recomputed = await publishedDays(store.sql);
    expect(recomputed.length).toBe(extended.length);
    recomputed.forEach((row, i) => {
      const { run_id: _a, data_vintage: _va, ...now } = row;
      const { run_id: _b, data_vintage: _vb, ...was } = extended[i]!;
      expect(now, row.date).toEqual(was);
    });
    expect(full.latest).toEqual(incremental.latest);
  }, 600_000);
});
