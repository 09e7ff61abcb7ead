/**
 * What a pipeline run may do to the live service, against a real store: a what-if writes nothing; a run only
 * ever adds days unless asked; rewriting published days needs a confirmation and removing them `force` as
 * well; an operator's manual broadcast holds through runs until released; a run left behind by a dead process
 * never blocks the next one.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentRegime, publishFromPipeline, publishManual, releaseOverride } from '../../src/store/regime-broadcasts.js';
import { runPipeline, type RunSummary } from '../../src/signals/publish/run.js';
import type { Sql } from '../../src/store/driver.js';
import { publishedRun, testStore, type TestStore } from '../helpers/db.js';
import { macroDataThrough } from '../helpers/macro-data.js';
import { PUBLISHED_HISTORY } from '../setup/published-history.js';

const DATA = path.resolve('data/macro');
const base = { dataDir: DATA, seed: 7 };
const CUT = '2009-03-31';
let store: TestStore;
let first: RunSummary;

/** Everything a reader of the published history sees, to prove a refused run changed nothing. */
async function snapshot(sql: Sql) {
  const days = await sql`select date::text as date, regime, risk_score, prob_risk_off, run_id from signal_days order by date`;
  const [counts] = await sql`select (select count(*)::int from net_liquidity) as liquidity, (select count(*)::int from scorecard_days) as scorecard,
    (select count(*)::int from model_runs) as runs, (select count(*)::int from regime_broadcasts) as broadcasts`;
  return { days, counts, broadcast: (await currentRegime(sql))?.hash ?? null };
}

beforeAll(async () => {
  // The history published as of CUT, made once for the run (test/setup/published-history.ts).
  expect(PUBLISHED_HISTORY).toMatchObject({ ...base, asOf: CUT, publish: true });
  store = await testStore({ history: 'published' });
  first = await publishedRun();
}, 600_000);
afterAll(async () => store?.close());

describe('a what-if run (--as-of without --publish)', () => {
  it('computes as of that evening and writes nothing: no day, no broadcast, no run record', async () => {
    const before = await snapshot(store.sql);
    const whatIf = await runPipeline(store.sql, { ...base, asOf: '2008-10-10' });
    expect(whatIf).toMatchObject({ published: false, run_id: null, as_of: '2008-10-10', last_day: '2008-10-10', broadcast_hash: null });
    expect(await snapshot(store.sql)).toEqual(before);
    // The same numbers a run on that evening published (point in time): the published day agrees.
    const day = before.days.find((d) => d.date === '2008-10-10')!;
    expect(whatIf.latest).toMatchObject({ regime: day.regime, risk_score: day.risk_score });
  }, 300_000);

  it('a backfill that would remove later days is refused before any work, without --force', async () => {
    const before = await snapshot(store.sql);
    await expect(runPipeline(store.sql, { ...base, asOf: '2008-10-10', publish: true })).rejects.toMatchObject({
      code: 'published_days_would_be_removed',
      exit: 4,
      message: expect.stringContaining(`the history runs to ${first.last_day}`),
    });
    expect(await snapshot(store.sql)).toEqual(before);
  });
});

describe('a run never removes or rewrites published days on its own', () => {
  it('a run whose data end before the last published day is refused, naming the days it would remove', async () => {
    const dir = await macroDataThrough('2008-12-31');
    const before = await snapshot(store.sql);
    const err = await runPipeline(store.sql, { ...base, dataDir: dir, asOf: null, full: true }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'published_days_would_be_removed' });
    expect((err as Error).message).toMatch(/REMOVES \d+ published days \(2009-01-02 to 2009-03-31\)/);
    const after = await snapshot(store.sql);
    expect(after.days).toEqual(before.days);
    expect(after.broadcast).toBe(before.broadcast);
    const [run] = await store.sql`select status, error from model_runs order by started_at desc limit 1`;
    expect(run).toMatchObject({ status: 'failed', error: expect.stringMatching(/^published_days_would_be_removed/) });
  }, 300_000);

  it('a default run that cannot extend the history (another seed) stops instead of recomputing it', async () => {
    const before = await snapshot(store.sql);
    await expect(runPipeline(store.sql, { ...base, seed: 11, asOf: null })).rejects.toMatchObject({
      code: 'history_not_extendable',
      message: expect.stringContaining('made with seed 7; this run has seed 11'),
    });
    expect((await snapshot(store.sql)).days).toEqual(before.days);
  }, 300_000);

  it('--full with the same data and seed republishes the same numbers without asking', async () => {
    const full = await runPipeline(store.sql, { ...base, asOf: CUT, publish: true, full: true });
    expect(full.plan).toMatchObject({ mode: 'full', added: 0, changed: 0, removed: 0, unchanged: first.days });
    const [run] = await store.sql`select publish_plan, confirmed_by from model_runs where run_id = ${full.run_id}`;
    expect(run).toMatchObject({ publish_plan: { unchanged: first.days }, confirmed_by: null });
  }, 300_000);

  it('--full that would rewrite published days with other numbers needs a confirmation; without one nothing changes', async () => {
    // Other numbers come from other data: the seed changes none since the fits have no random start.
    const dataDir = await macroDataThrough(CUT);
    const vix = path.join(dataDir, 'VIXCLS.csv');
    const lines = (await readFile(vix, 'utf8')).split('\n');
    await writeFile(vix, lines.map((l) => (l.startsWith('2008-1') && l.slice(11) !== '' ? `${l.slice(0, 11)}${Number(l.slice(11)) * 1.5}` : l)).join('\n'));
    const before = await snapshot(store.sql);
    const err = await runPipeline(store.sql, { ...base, dataDir, asOf: CUT, publish: true, full: true }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'confirmation_required', exit: 2 });
    expect((err as Error).message).toMatch(/rewrites [1-9]\d* published days with other numbers/);
    const after = await snapshot(store.sql);
    expect(after.days).toEqual(before.days);
    expect(after.broadcast).toBe(before.broadcast);
  }, 300_000);
});

describe("an operator's manual broadcast", () => {
  it('holds through a pipeline run, which still publishes its history and says what the model says', async () => {
    const manual = await publishManual(store.sql, {
      date: '2026-11-23',
      regime: 'risk_off',
      risk_score: 0.95,
      model_version: 'manual',
      reason: 'emergency',
      published_by: 'test',
    });
    // A run that publishes no new day (the history already ends at the cut), as a nightly run would.
    const run = await runPipeline(store.sql, { ...base, asOf: CUT, publish: true });
    expect(run).toMatchObject({
      published: true,
      mode: 'incremental',
      days: 0,
      broadcast_hash: null,
      override: { id: manual.id, regime: 'risk_off', reason: 'emergency' },
    });
    expect(run.latest).toMatchObject({ date: first.last_day, regime: first.latest!.regime });
    expect(await currentRegime(store.sql)).toMatchObject({ id: manual.id, source: 'manual' });
    const [record] = await store.sql`select status from model_runs where run_id = ${run.run_id}`;
    expect(record!.status).toBe('published');
  }, 300_000);

  it('is lifted by a release, which broadcasts the newest published day again; a second release is refused', async () => {
    const held = await currentRegime(store.sql);
    const { released, broadcast } = await releaseOverride(store.sql, 'test', 'all clear');
    expect(released.id).toBe(held!.id);
    expect(broadcast).toMatchObject({
      source: 'pipeline',
      date: first.last_day,
      regime: first.latest!.regime,
      reason: `released manual broadcast #${held!.id}: all clear`,
    });
    expect(broadcast.hash).toBe(first.broadcast_hash);
    await expect(releaseOverride(store.sql, 'test', null)).rejects.toMatchObject({ code: 'regime_override_not_in_force', exit: 4 });
  });

  it("is never replaced by a pipeline broadcast racing it: after every race the operator's broadcast is in force", async () => {
    const day = { date: first.last_day!, regime: 'expansion' as const, risk_score: 0.1, model_version: 'm', reason: 'race', published_by: 'pipeline' };
    for (let round = 0; round < 20; round++) {
      if ((await currentRegime(store.sql))?.source === 'manual') await releaseOverride(store.sql, 'test', null);
      const [manual] = await Promise.all([
        publishManual(store.sql, { ...day, regime: 'risk_off', risk_score: 0.9, reason: `round ${round}` }),
        store.sql.begin((tx) => publishFromPipeline(tx, day)),
      ]);
      expect(await currentRegime(store.sql), `round ${round}`).toMatchObject({ id: manual.id, source: 'manual' });
    }
    await releaseOverride(store.sql, 'test', null);
  }, 300_000);
});

describe('a run left behind by a process that died', () => {
  it('never blocks the next run: it is marked abandoned and the run goes ahead', async () => {
    // A process that has exited: its pid names no live process.
    const dead = Number(execFileSync(process.execPath, ['-e', 'console.log(process.pid)']).toString().trim());
    const ghost = randomUUID();
    await store.sql`insert into model_runs (run_id, started_at, status, model_version, seed, parameters, holder_pid, holder_host)
      values (${ghost}, now(), 'running', 'm', 7, '{}'::jsonb, ${dead}, ${os.hostname()})`;
    const run = await runPipeline(store.sql, { ...base, asOf: CUT, publish: true });
    expect(run.published).toBe(true);
    const [record] = await store.sql`select status, error from model_runs where run_id = ${ghost}`;
    expect(record).toMatchObject({ status: 'failed', error: expect.stringMatching(/^abandoned/) });
  }, 300_000);
});

describe('a backfill with --force', () => {
  it('removes the days after its cut only when confirmed, and records the plan and who confirmed it', async () => {
    const before = await snapshot(store.sql);
    const asked: string[] = [];
    const run = await runPipeline(
      store.sql,
      { ...base, asOf: '2008-10-10', publish: true, force: true },
      {
        confirm: async (_plan, sentence) => {
          asked.push(sentence);
          return 'test-operator';
        },
      },
    );
    const removed = before.days.filter((d) => d.date > '2008-10-10').length;
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain(`REMOVES ${removed} published days (2008-10-13 to ${first.last_day})`);
    expect(run.plan).toMatchObject({ removed, removed_first: '2008-10-13', removed_last: first.last_day, changed: 0 });
    const after = await snapshot(store.sql);
    expect(after.days.at(-1)!.date).toBe('2008-10-10');
    expect(after.days.map((d) => ({ ...d, run_id: null }))).toEqual(before.days.filter((d) => d.date <= '2008-10-10').map((d) => ({ ...d, run_id: null })));
    const [record] = await store.sql`select confirmed_by, publish_plan from model_runs where run_id = ${run.run_id}`;
    expect(record).toMatchObject({ confirmed_by: 'test-operator', publish_plan: { removed } });
  }, 300_000);
});
