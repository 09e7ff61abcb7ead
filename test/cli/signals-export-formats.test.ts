/**
 * `tradeseal signals export --format arrow|parquet`, from the local store and from a remote service over real
 * HTTP, read back by readers other than the writers (test/helpers/columnar-readers.ts): every row and column
 * equals the CSV export's, typed; the service's tier rules hold (a free key gets 30 rows, no key 401);
 * standard output takes the bytes when redirected, and a terminal (a real pseudo-terminal) is refused.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { issueKey } from '../../src/signals/store/keys.js';
import type { Tier } from '../../src/signals/tiers.js';
import { cliEnv, describeRun, REPO_ROOT, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { builtCli, spawnEnv } from '../helpers/built-cli.js';
import { csvRows, readArrow, readParquet, type ReadBack } from '../helpers/columnar-readers.js';
import { testStore, type TestStore } from '../helpers/db.js';

const NUMERIC = ['risk_score', 'equity_exposure', 'prob_expansion', 'prob_recovery', 'prob_tightening', 'prob_risk_off'];
const READERS = {
  arrow: async (b: Uint8Array): Promise<ReadBack> => readArrow(b),
  parquet: readParquet,
} as const;

const home = tempHome();
let store: TestStore;
let server: RunningServer;
let env: CliEnv;

beforeAll(async () => {
  // The bundled data published as of 2009-03-31 with seed 7, made once for the run (test/setup/published-history.ts).
  store = await testStore({ history: 'published' });
  server = await startServer(configWith({ databaseUrl: store.url, logLevel: 'silent', port: 0 }), { services: ['signals'] });
  env = cliEnv(home, store.url);
}, 600_000);
afterAll(async () => {
  await server?.close();
  await store?.close();
});

async function keyOf(tier: Tier): Promise<string> {
  const id = randomUUID();
  await store.sql`insert into signal_accounts (account_id, email, tier) values (${id}, ${`${id}@example.test`}, ${tier})`;
  return (await issueKey(store.sql, id)).api_key;
}

/** The local CSV export of the newest `limit` days, as rows. */
async function csvExport(limit: number): Promise<ReturnType<typeof csvRows>> {
  const csv = await runCli(['signals', 'export', '--limit', String(limit)], env);
  expect(csv.code, describeRun(csv)).toBe(0);
  return csvRows(csv.stdout, NUMERIC);
}

/** Runs `command` in bash as an operator's shell would (pipes, redirections, `script` for a terminal). */
function shell(command: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // The compiled CLI (`node bin/run.js` from the checkout), built first when stale.
    builtCli();
    execFile('bash', ['-c', command], { cwd: REPO_ROOT, env: spawnEnv(env), timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

describe.each(Object.entries(READERS))('signals export --format %s', (format, read) => {
  it("from the store: the CSV export's rows and columns, with --out (and its alias --output) and to redirected standard output", async () => {
    const dir = fs.mkdtempSync(path.join(home, `${format}-`));
    const file = path.join(dir, `regimes.${format}`);
    const res = await runCli(['signals', 'export', '--format', format, '--limit', '100000', '--out', file, '--json'], env);
    expect(res.code, describeRun(res)).toBe(0);
    const [count] = await store.sql<Array<{ days: number }>>`select count(*)::int as days from signal_days`;
    expect(res.json()).toEqual({ rows: count!.days, file });
    const all = await read(new Uint8Array(fs.readFileSync(file)));
    expect(all.rows).toEqual(await csvExport(100000));
    expect(all.columns.map((c) => c.split(':')[0])).toEqual(['date', 'regime', ...NUMERIC, 'available_at']);

    const aliased = path.join(dir, `five.${format}`);
    const five = await runCli(['signals', 'export', '--format', format, '--limit', '5', '--output', aliased], env);
    expect(five.code, describeRun(five)).toBe(0);
    expect(five.stderr).toContain(`wrote 5 rows to ${aliased}`);
    expect((await read(new Uint8Array(fs.readFileSync(aliased)))).rows).toEqual(await csvExport(5));

    const piped = path.join(dir, `piped.${format}`);
    const redirected = await shell(`node bin/run.js signals export --format ${format} --limit 7 > '${piped}'`);
    expect(redirected.code, redirected.stderr).toBe(0);
    expect((await read(new Uint8Array(fs.readFileSync(piped)))).rows).toEqual(await csvExport(7));
  }, 120_000);

  it('refuses to write the binary file to a terminal, and says how to write it', async () => {
    const res = await shell(`script -qec 'node bin/run.js signals export --format ${format}' /dev/null`);
    expect(res.code).toBe(2);
    expect(res.stdout).toContain(`${format} is a binary format and standard output is a terminal: give --out FILE or redirect standard output`);
  }, 120_000);

  it("from a service (--url): the tier's window (a free key 30 rows), the same rows as locally; no key is 401 `unauthorized` (exit 5)", async () => {
    const dir = fs.mkdtempSync(path.join(home, `${format}-remote-`));
    const file = path.join(dir, `regimes.${format}`);
    const free = await keyOf('free');
    const res = await runCli(['signals', 'export', '--format', format, '--out', file, '--url', server.url, '--key', free], env);
    expect(res.code, describeRun(res)).toBe(0);
    expect((await read(new Uint8Array(fs.readFileSync(file)))).rows).toEqual(await csvExport(30));
    const past = await runCli(['signals', 'export', '--format', format, '--limit', '31', '--out', file, '--url', server.url, '--key', free], env);
    expect(past.code, describeRun(past)).toBe(2);
    expect(past.stderr).toContain('must be at most 30 on the Free tier');
    const keyless = await runCli(
      ['signals', 'export', '--format', format, '--out', path.join(dir, 'none'), '--url', server.url],
      cliEnv(home, store.url, { SIGNALS_KEY: '' }),
    );
    expect(keyless.code, describeRun(keyless)).toBe(5);
    expect(keyless.stderr).toContain('unauthorized');
    expect(fs.existsSync(path.join(dir, 'none'))).toBe(false);
  }, 120_000);
});

describe('signals export --format', () => {
  it('takes csv, arrow or parquet only (exit 2)', async () => {
    const res = await runCli(['signals', 'export', '--format', 'feather'], env);
    expect(res.code, describeRun(res)).toBe(2);
    expect(res.stderr).toMatch(/csv, arrow, parquet/);
  });
});

describe('signals backtest --format: the daily series', () => {
  const window = ['--start', '2008-01-02', '--end', '2009-03-31'];
  const SERIES_NUMERIC = ['exposure', 'exposure_gap', 'traded', 'strategy_return', 'benchmark_return', 'gold_return', 'strategy_value', 'benchmark_value'];

  it('writes the same rows as CSV, Arrow and Parquet, oldest first, and they compound to the reported total return', async () => {
    const dir = fs.mkdtempSync(path.join(home, 'backtest-'));
    const csv = await runCli(['signals', 'backtest', ...window, '--format', 'csv'], env);
    expect(csv.code, describeRun(csv)).toBe(0);
    const rows = csvRows(csv.stdout, SERIES_NUMERIC);
    expect(Object.keys(rows[0]!)).toEqual(['date', 'held', ...SERIES_NUMERIC]);
    expect(rows.every((r, i) => i === 0 || r.date! > rows[i - 1]!.date!)).toBe(true);
    const weight: Record<string, number> = { expansion: 1, recovery: 0.75, tightening: 0.25, risk_off: 0 };
    for (const r of rows) expect(r.exposure).toBe(weight[r.held as string]);
    // --out alone: CSV to the file, the summary still on standard output.
    const csvFile = path.join(dir, 'series.csv');
    const toFile = await runCli(['signals', 'backtest', ...window, '--out', csvFile], env);
    expect(toFile.code, describeRun(toFile)).toBe(0);
    expect(toFile.stdout).toMatch(/^backtest 2008-01-02 to 2009-03-31: /);
    expect(toFile.stderr).toContain(`wrote ${rows.length} days to ${csvFile}`);
    expect(fs.readFileSync(csvFile, 'utf8')).toBe(csv.stdout);
    for (const [format, read] of Object.entries(READERS)) {
      const file = path.join(dir, `series.${format}`);
      const res = await runCli(['signals', 'backtest', ...window, '--format', format, '--out', file, '--json'], env);
      expect(res.code, describeRun(res)).toBe(0);
      const answer = res.json();
      expect(answer.summary.total_days).toBeGreaterThan(0);
      expect(answer).not.toHaveProperty('days');
      const back = await read(new Uint8Array(fs.readFileSync(file)));
      expect(back.rows, format).toEqual(rows);
      expect((back.rows.at(-1)!.strategy_value as number) / 100 - 1).toBeCloseTo(answer.performance.total_return, 10);
    }
  }, 120_000);

  it('refuses a binary series to a terminal, and the series from --url (exit 2)', async () => {
    const tty = await shell(`script -qec 'node bin/run.js signals backtest ${window.join(' ')} --format parquet' /dev/null`);
    expect(tty.code).toBe(2);
    expect(tty.stdout).toContain('parquet is a binary format and standard output is a terminal');
    const remote = await runCli(
      ['signals', 'backtest', ...window, '--format', 'arrow', '--out', path.join(home, 'x.arrow'), '--url', server.url, '--key', await keyOf('pro')],
      env,
    );
    expect(remote.code, describeRun(remote)).toBe(2);
    expect(remote.stderr).toContain('the daily series is computed from the local store');
  }, 120_000);
});

describe('signals forecast --format: the forecast rows', () => {
  const FORECAST_NUMERIC = ['confidence', 'risk_score', 'prob_expansion', 'prob_recovery', 'prob_tightening', 'prob_risk_off'];

  it("writes the JSON forecast's rows as CSV, Arrow and Parquet, locally and from a service; the service's tiers hold", async () => {
    const dir = fs.mkdtempSync(path.join(home, 'forecast-'));
    const json = await runCli(['signals', 'forecast', '--horizon', '10', '--json'], env);
    expect(json.code, describeRun(json)).toBe(0);
    const expected = json.json().forecast;
    expect(expected).toHaveLength(10);
    const csv = await runCli(['signals', 'forecast', '--horizon', '10', '--format', 'csv'], env);
    expect(csv.code, describeRun(csv)).toBe(0);
    expect(csvRows(csv.stdout, FORECAST_NUMERIC)).toEqual(expected);
    const starter = await keyOf('starter');
    for (const [format, read] of Object.entries(READERS)) {
      const file = path.join(dir, `forecast.${format}`);
      const res = await runCli(['signals', 'forecast', '--horizon', '10', '--format', format, '--out', file], env);
      expect(res.code, describeRun(res)).toBe(0);
      expect(res.stderr).toContain(`wrote 10 days to ${file}`);
      const back = await read(new Uint8Array(fs.readFileSync(file)));
      expect(back.columns.map((c) => c.split(':')[0])).toEqual(['date', 'regime', ...FORECAST_NUMERIC]);
      expect(back.rows, format).toEqual(expected);
      const remoteFile = path.join(dir, `remote.${format}`);
      const remote = await runCli(
        ['signals', 'forecast', '--horizon', '10', '--format', format, '--out', remoteFile, '--url', server.url, '--key', starter],
        env,
      );
      expect(remote.code, describeRun(remote)).toBe(0);
      expect((await read(new Uint8Array(fs.readFileSync(remoteFile)))).rows).toEqual(expected);
    }
    const free = await runCli(
      ['signals', 'forecast', '--format', 'arrow', '--out', path.join(dir, 'free.arrow'), '--url', server.url, '--key', await keyOf('free')],
      env,
    );
    expect(free.code, describeRun(free)).toBe(5);
    expect(fs.existsSync(path.join(dir, 'free.arrow'))).toBe(false);
  }, 120_000);
});
