/**
 * A changed input history never goes unseen, against a real store: a run that would extend the published
 * history is refused (`history_not_extendable`, exit 4) when a row of an input usable on or before the last
 * published day was revised, removed or inserted, naming the series and the first changed date; nothing is
 * published and the run is recorded as failed. `pipeline check` reports the same finding. New rows after that
 * day extend the history; a history whose runs recorded no digests gets them from the next run, with a notice;
 * `--full --yes` recomputes it from the changed files. The files are cut at 2009-06-30, which proves each of
 * these as well as a longer history would: a digest covers every row up to the last published day.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentRegime } from '../../src/store/regime-broadcasts.js';
import type { Sql } from '../../src/store/driver.js';
import { NOT_RECORDED_NOTICE } from '../../src/signals/publish/input-record.js';
import { runPipeline, type RunSummary } from '../../src/signals/publish/run.js';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { publishedRun, testStore, type TestStore } from '../helpers/db.js';
import { macroDataThrough } from '../helpers/macro-data.js';

const base = { seed: 7, asOf: null };
const home = tempHome();
let store: TestStore;
let env: CliEnv;
let first: RunSummary;

type Edit = [file: string, edit: (lines: string[]) => string[]];

/** A copy of the bundled data through `last` with `edits` applied, each of which must change its file. */
async function copyWith(last: string, ...edits: Edit[]): Promise<string> {
  const dir = await macroDataThrough(last);
  for (const [file, edit] of edits) {
    const p = path.join(dir, file);
    const lines = (await fs.readFile(p, 'utf8')).split('\n').filter((l) => l !== '');
    const edited = edit(lines);
    if (edited.join('\n') === lines.join('\n')) throw new Error(`the edit of ${file} changed nothing`);
    await fs.writeFile(p, `${edited.join('\n')}\n`);
  }
  return dir;
}

/** The value of `file` on `date` multiplied by `k` (a FRED `date,value` file). */
const times = (file: string, date: string, k: number): Edit => [
  file,
  (lines) => lines.map((l) => (l.startsWith(`${date},`) ? `${date},${Number(l.split(',')[1]) * k}` : l)),
];
const without = (file: string, date: string): Edit => [file, (lines) => lines.filter((l) => !l.startsWith(`${date},`))];
/** A copy of the row of `date` dated `newDate`, right after it. */
const inserted = (file: string, date: string, newDate: string): Edit => [
  file,
  (lines) => lines.flatMap((l) => (l.startsWith(`${date},`) ? [l, `${newDate}${l.slice(10)}`] : [l])),
];

/** Everything a reader of the published history sees, to prove a refused run changed nothing. */
async function snapshot(sql: Sql) {
  const days = await sql`select date::text as date, regime, risk_score, level_bn, run_id from signal_days order by date`;
  const [counts] = await sql`select (select count(*)::int from model_runs where status = 'published') as published_runs,
    (select count(*)::int from run_input_digests) as digests`;
  return { days, counts, broadcast: (await currentRegime(sql))?.hash ?? null };
}

const newestRun = async (sql: Sql) => (await sql`select run_id, status, error from model_runs order by started_at desc limit 1`)[0];

/** Runs `dataDir` as a default run and expects it refused for `change`, with nothing published and the run failed. */
async function expectRefused(
  dataDir: string,
  change: { series: string; date: string; kind: string; was: string | null; now: string | null },
  through: string,
): Promise<void> {
  const before = await snapshot(store.sql);
  const err = await runPipeline(store.sql, { ...base, dataDir }).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'history_not_extendable', exit: 4, extra: { input_changes: [change] } });
  expect((err as Error).message).toContain(
    `the input ${change.series} changed on or before the last published day ${through}: its first changed row is ${change.date} (`,
  );
  expect((err as { hint: string }).hint).toMatch(/--full.*--yes/);
  expect(await snapshot(store.sql)).toEqual(before);
  expect(await newestRun(store.sql)).toMatchObject({
    status: 'failed',
    error: expect.stringMatching(new RegExp(`^history_not_extendable: .*the input ${change.series} changed`)),
  });
}

/** A revision after the published history that the runs below keep (it is what they published). */
const KEPT = times('WALCL.csv', '2009-04-15', 1.01);
/** The files the `--full` run recomputes the history from, which the runs after it extend. */
const RECOMPUTED = [KEPT, times('WALCL.csv', '2008-10-01', 5)];

beforeAll(async () => {
  // The history published as of 2009-03-31, seed 7 (test/setup/published-history.ts).
  store = await testStore({ history: 'published' });
  first = await publishedRun();
  env = cliEnv(home, store.url);
}, 600_000);
afterAll(async () => store?.close());

describe('on the history published as of 2009-03-31', () => {
  it('a revised value before the last published day is refused, naming WALCL and 2008-10-01', async () => {
    expect(first.last_day).toBe('2009-03-31');
    await expectRefused(
      await copyWith('2009-06-30', times('WALCL.csv', '2008-10-01', 5)),
      { series: 'WALCL', date: '2008-10-01', kind: 'revised', was: '1503989', now: '7519945' },
      '2009-03-31',
    );
  }, 300_000);

  it('a removed row is refused, naming it (GSPC 1985-06-14: before 1990 only the order of its dates is checked)', async () => {
    await expectRefused(
      await copyWith('2009-06-30', without('GSPC.csv', '1985-06-14')),
      { series: 'GSPC', date: '1985-06-14', kind: 'removed', was: '187.1000061035156', now: null },
      '2009-03-31',
    );
  }, 300_000);

  it('an inserted row is refused, naming it (GSPC 1985-06-15, a Saturday)', async () => {
    await expectRefused(
      await copyWith('2009-06-30', inserted('GSPC.csv', '1985-06-14', '1985-06-15')),
      { series: 'GSPC', date: '1985-06-15', kind: 'inserted', was: null, now: '187.1000061035156' },
      '2009-03-31',
    );
  }, 300_000);

  it("new rows after the last published day, one of them other than the bundle's, extend the history", async () => {
    const run = await runPipeline(store.sql, { ...base, dataDir: await copyWith('2009-06-30', KEPT) });
    expect(run).toMatchObject({ published: true, mode: 'incremental', first_day: '2009-04-01', last_day: '2009-06-30' });
    const recorded = await store.sql`select series, through::text as through from run_input_digests where run_id = ${run.run_id} order by series`;
    expect(recorded.length).toBe(13);
    expect(new Set(recorded.map((r) => r.through))).toEqual(new Set(['2009-06-30']));
  }, 300_000);

  it('a history whose runs recorded no digests gets them from the next run, with a notice', async () => {
    const dataDir = await copyWith('2009-06-30', KEPT);
    await store.sql`delete from run_input_digests`;
    const run = await runPipeline(store.sql, { ...base, dataDir });
    expect(run).toMatchObject({ published: true, mode: 'incremental', days: 0 });
    expect(run.warnings).toContain(NOT_RECORDED_NOTICE);
    expect((await store.sql`select count(*)::int as n from run_input_digests where run_id = ${run.run_id}`)[0]!.n).toBe(13);
    const next = await runPipeline(store.sql, { ...base, dataDir });
    expect(next.warnings).not.toContain(NOT_RECORDED_NOTICE);
  }, 300_000);

  it('`pipeline run --full --yes` recomputes the whole history from the changed file, and later runs extend it', async () => {
    const dataDir = await copyWith('2009-06-30', ...RECOMPUTED);
    await expect(runPipeline(store.sql, { ...base, dataDir })).rejects.toMatchObject({ code: 'history_not_extendable' });
    const before = await snapshot(store.sql);
    const r = await runCli(['pipeline', 'run', '--data-dir', dataDir, '--seed', '7', '--full', '--yes', '--json'], env, 240_000);
    expect(r.code, describeRun(r)).toBe(0);
    const summary = r.json<RunSummary>();
    // The Wednesday's value is usable from the Thursday: the first day it changes is 2008-10-02.
    expect(summary.plan).toMatchObject({ mode: 'full', removed: 0, changed_first: '2008-10-02' });
    const [record] = await store.sql`select status, confirmed_by from model_runs where run_id = ${summary.run_id}`;
    expect(record).toMatchObject({ status: 'published', confirmed_by: expect.any(String) });
    const after = await snapshot(store.sql);
    const level = (s: typeof before, date: string) => s.days.find((d) => d.date === date)!.level_bn as number;
    expect(level(after, '2008-10-01')).toBe(level(before, '2008-10-01'));
    expect(level(after, '2008-10-02')).not.toBe(level(before, '2008-10-02'));

    const next = await runPipeline(store.sql, { ...base, dataDir });
    expect(next).toMatchObject({ published: true, mode: 'incremental', days: 0 });
  }, 300_000);
});

describe('the reproduction: WALCL × 5 on a day inside the published range, which `pipeline check` passed and `pipeline run` published nothing from', () => {
  // After the runs above the history is published through 2009-06-30 from RECOMPUTED; 2009-05-06 is inside it.
  it('refuses the changed file in `pipeline check` and `pipeline run`, naming WALCL and 2009-05-06', async () => {
    const same = await copyWith('2009-06-30', ...RECOMPUTED);
    const unchanged = await runCli(['pipeline', 'check', '--data-dir', same], env);
    expect(unchanged.code, describeRun(unchanged)).toBe(0);
    expect(unchanged.stdout).toContain('the rows of the published days (through 2009-06-30) are as they were published');

    const changed = await copyWith('2009-06-30', ...RECOMPUTED, times('WALCL.csv', '2009-05-06', 5));
    const [text, json] = [
      await runCli(['pipeline', 'check', '--data-dir', changed], env),
      await runCli(['pipeline', 'check', '--data-dir', changed, '--json'], env),
    ];
    expect(text.code, describeRun(text)).toBe(4);
    expect(text.stdout).toMatch(/all 13 files in .* pass/);
    expect(text.stderr).toContain(
      'history_not_extendable: the files pass, but a run cannot extend the published history: the input WALCL changed on or before the last published day 2009-06-30: its first changed row is 2009-05-06 (revised: 2079758 then, 10398790 now)',
    );
    expect(text.stderr).toContain('--full');
    expect(json.code, describeRun(json)).toBe(4);
    expect(json.json().error).toMatchObject({
      code: 'history_not_extendable',
      exit: 4,
      detail: expect.stringContaining('WALCL changed'),
      input_changes: [{ series: 'WALCL', date: '2009-05-06', kind: 'revised', was: '2079758', now: '10398790' }],
    });

    const run = await runCli(['pipeline', 'run', '--data-dir', changed, '--seed', '7', '--json'], env);
    expect(run.code, describeRun(run)).toBe(4);
    await expectRefused(changed, { series: 'WALCL', date: '2009-05-06', kind: 'revised', was: '2079758', now: '10398790' }, '2009-06-30');
  }, 300_000);
});
