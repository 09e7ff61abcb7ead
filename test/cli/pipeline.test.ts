/**
 * The pipeline's commands as an operator and cron use them: run (with its progress and summary), status,
 * signals history, and schedule as a long-running job that runs a night at each tick, logs each event and stops on
 * SIGTERM.
 */
import { spawn } from 'node:child_process';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStore, type TestStore } from '../helpers/db.js';
import { cliEnv, describeRun, REPO_ROOT, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { builtCli, spawnEnv } from '../helpers/built-cli.js';
import { macroDataThrough } from '../helpers/macro-data.js';

const home = tempHome();
/** The last day of the data the scheduled run reads (a trading day). */
const SCHEDULED_THROUGH = '2011-12-30';
let store: TestStore;
let env: CliEnv;

beforeAll(async () => {
  store = await testStore();
  env = cliEnv(home, store.url);
});
afterAll(async () => store?.close());

describe('pipeline commands', () => {
  it("run shows each stage and closes with today's regime; status and signals history read what it published", async () => {
    const run = await runCli(['pipeline', 'run', '--as-of', '2009-03-31', '--publish'], env);
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stderr).toMatch(
      /Validate the inputs and build point-in-time features[\s\S]*Fit PCA and the HMM[\s\S]*refit 28 of 28 \(2009-03-02\)[\s\S]*Publish in one transaction/,
    );
    expect(run.stdout).toMatch(/run [0-9a-f-]{36} \(full\): published \d+ trading days \(2006-12-20 to 2009-03-3\d\)/);
    expect(run.stdout).toMatch(/regime on 2009-03-3\d: (expansion|recovery|tightening|risk_off) \(risk_score [01]\.\d{3}, confidence (HIGH|MODERATE|LOW)\)/);
    expect(run.stdout).toMatch(/timings: features \d+ ms, models \d+ ms, signals \d+ ms, reports \d+ ms, publish \d+ ms/);

    const status = await runCli(['pipeline', 'status', '--json'], env);
    expect(status.code, describeRun(status)).toBe(0);
    expect(status.json().runs[0]).toMatchObject({ status: 'published', seed: 7, first_day: '2006-12-20' });

    const history = await runCli(['signals', 'history', '--start', '2008-10-06', '--end', '2008-10-10', '--json'], env);
    expect(history.code, describeRun(history)).toBe(0);
    const rows = history.json<Array<{ date: string; regime: string; risk_score: number }>>();
    expect(rows.map((r) => r.date)).toEqual(['2008-10-06', '2008-10-07', '2008-10-08', '2008-10-09', '2008-10-10']);
    for (const r of rows) expect(r.regime).toBe('risk_off');

    const text = await runCli(['signals', 'history', '--start', '2008-10-06', '--end', '2008-10-07'], env);
    expect(text.stdout).toMatch(/date\s+regime\s+risk_score\s+expansion\s+recovery\s+tightening\s+risk_off\n[-\s]+\n2008-10-06\s+risk_off/);

    // A longer range: the table shows the newest 60 days and says how to see the rest; --csv gives every day.
    const [long, csv, limited] = await Promise.all([
      runCli(['signals', 'history', '--start', '2008-01-02', '--end', '2008-12-31'], env),
      runCli(['signals', 'history', '--start', '2008-01-02', '--end', '2008-12-31', '--csv'], env),
      runCli(['signals', 'history', '--start', '2008-01-02', '--end', '2008-12-31', '--limit', '5', '--columns', 'date,regime'], env),
    ]);
    const year = (parse(csv.stdout) as string[][]).slice(1);
    expect(year).toHaveLength(253);
    expect(year[0]![0]).toBe('2008-01-02');
    const tableLines = long.stdout.trimEnd().split('\n');
    expect(tableLines).toHaveLength(2 + 60 + 1);
    expect(tableLines[2]).toMatch(new RegExp(`^${year[253 - 60]![0]}\\s`));
    expect(tableLines.at(-1)).toBe(`the newest 60 of 253 days; older ones: --end ${year[253 - 61]![0]}, or --limit 253`);
    expect(
      limited.stdout
        .trimEnd()
        .split('\n')
        .slice(2, 7)
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(year.slice(-5).map((r) => r[0]));
  }, 300_000);

  it('refuses bad dates with exit 2', async () => {
    const bad = await runCli(['signals', 'history', '--start', '2008-13-01'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/"2008-13-01" is not a calendar date YYYY-MM-DD/);
    const rolled = await runCli(['signals', 'history', '--end', '2009-02-30'], env);
    expect(rolled.code).toBe(2);
    const reversed = await runCli(['signals', 'history', '--start', '2009-01-02', '--end', '2008-01-02'], env);
    expect(reversed.code).toBe(2);
    const asOf = await runCli(['pipeline', 'run', '--as-of', '2009-13-01'], env);
    expect(asOf.code).toBe(2);
    expect(asOf.stderr).toMatch(/not a calendar date/);
  }, 60_000);

  it('schedule runs a night at each tick of its cron, never two at once, logs each event as a JSON line, and stops on SIGTERM', async () => {
    // The data end in 2011, so every night finds today's due day late: it tries, waits and gives up at its
    // deadline, three seconds after it started, while the cron ticks every second.
    const dataDir = await macroDataThrough(SCHEDULED_THROUGH);
    const child = spawn(process.execPath, [builtCli(), 'pipeline', 'schedule', '--cron', '* * * * * *', '--no-fetch'], {
      cwd: REPO_ROOT,
      env: spawnEnv({ ...env, PIPELINE_DATA_DIR: dataDir, PIPELINE_DEADLINE: '3s', PIPELINE_RETRY_SECONDS: '1' }),
    });
    const lines: Array<Record<string, unknown>> = [];
    let buffer = '';
    const twoNights = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (!line.startsWith('{')) continue;
          const event = JSON.parse(line) as Record<string, unknown>;
          lines.push(event);
          // The second night waiting to try again: SIGTERM now cuts its wait short.
          if (event.event === 'waiting' && lines.filter((l) => l.event === 'late').length === 1) resolve();
          if (event.event === 'failed') reject(new Error(String(event.error)));
        }
      });
      child.once('exit', () => reject(new Error(`schedule exited early: ${JSON.stringify(lines)}`)));
    });
    await twoNights;
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(lines[0]).toMatchObject({ event: 'scheduled', cron: '* * * * * *' });
    const events = lines.map((l) => l.event);
    // Ticks come every second while a night takes three: they are skipped, never started alongside.
    const starts = events.flatMap((e, i) => (e === 'night_started' ? [i] : []));
    expect(starts).toHaveLength(2);
    expect(events.slice(starts[0], starts[1])).toContain('late');
    const [firstLate, stoppedLate] = lines.filter((l) => l.event === 'late');
    expect(String(firstLate!.error)).toMatch(/WALCL\.csv lacks the row of .* The deadline .* comes before another try after \d+ tries; nothing was published/);
    expect(String(stoppedLate!.error)).toContain('The job was stopped before the deadline');
    expect(lines.at(-1)).toMatchObject({ event: 'stopped' });
  }, 300_000);
});
