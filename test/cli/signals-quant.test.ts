/**
 * What quants and analysts read after a nightly run, through the commands they use: the forecast, a
 * backtest, the performance report and the CSV export. The performance figures are recomputed here
 * independently, from the exported CSV and the bundled SPY opens and closes alone (test/helpers/
 * subscriber-returns.ts: plain arithmetic, none of pipeline/reports/), and must be the published numbers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPipeline, type RunSummary } from '../../src/signals/publish/run.js';
import { PublishedHistoryCache } from '../../src/signals/history-cache.js';
import { backtestRows } from '../../src/signals/store/quant.js';
import { cliEnv, describeRun, REPO_ROOT, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { alpha, annual, maxDrawdown, mean, readSpy, sharpe, subscriberReturns, wealth } from '../helpers/subscriber-returns.js';

const home = tempHome();
const CUT = '2012-12-31';
let store: TestStore;
let env: CliEnv;
let run: RunSummary;

beforeAll(async () => {
  store = await testStore();
  env = cliEnv(home, store.url);
  run = await runPipeline(store.sql, { dataDir: path.join(REPO_ROOT, 'data/macro'), asOf: CUT, publish: true, seed: 7 });
}, 600_000);
afterAll(async () => store?.close());

/** The CSV as an analyst's own script would read it: split on new lines and commas. */
function readCsv(text: string): Array<Record<string, string>> {
  const [head, ...lines] = text.trim().split('\n');
  const cols = head!.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i]!, v])));
}

describe("the run publishes the quants' figures with the regimes", () => {
  it('writes the forecast and the performance report in the same run as the regimes', async () => {
    const [f] = await store.sql`select run_id, base_date::text as base_date, horizon, jsonb_array_length(rows) as n from forecasts`;
    expect(f).toMatchObject({ run_id: run.run_id, base_date: CUT, horizon: 10, n: 10 });
    const [p] = await store.sql`select run_id, last_day::text as last_day from performance_reports`;
    expect(p).toMatchObject({ run_id: run.run_id, last_day: CUT });
  });
});

describe('signals export', () => {
  it("writes the interface's columns, newest first, 730 rows by default, equity_exposure as a number", async () => {
    const out = await runCli(['signals', 'export'], env);
    expect(out.code, describeRun(out)).toBe(0);
    const lines = out.stdout.trim().split('\n');
    expect(lines[0]).toBe('date,regime,risk_score,equity_exposure,prob_expansion,prob_recovery,prob_tightening,prob_risk_off,available_at');
    expect(lines).toHaveLength(731);
    const rows = readCsv(out.stdout);
    expect(rows[0]!.date).toBe(CUT);
    expect(rows.every((r, i) => i === 0 || r.date! < rows[i - 1]!.date!)).toBe(true);
    const weight: Record<string, string> = { expansion: '1', recovery: '0.75', tightening: '0.25', risk_off: '0' };
    for (const r of rows) expect(r.equity_exposure).toBe(weight[r.regime!]);
  }, 60_000);

  it('writes a file with --out, and refuses --json without one', async () => {
    const file = path.join(home, 'regimes.csv');
    const res = await runCli(['signals', 'export', '--limit', '5', '--out', file, '--json'], env);
    expect(res.code, describeRun(res)).toBe(0);
    expect(res.json()).toEqual({ rows: 5, file });
    expect(fs.readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(6);
    const bad = await runCli(['signals', 'export', '--json'], env);
    expect(bad.code).toBe(2);
    expect(bad.json().error.errors).toEqual([{ field: '--json', message: expect.stringContaining('needs --out') }]);
    const zero = await runCli(['signals', 'export', '--limit', '0'], env);
    expect(zero.code).toBe(2);
    // Not a terminal: the progress is plain lines on stderr, standard output stays empty.
    const plain = await runCli(['signals', 'export', '--limit', '100000', '--out', file], env);
    expect(plain.code, describeRun(plain)).toBe(0);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toMatch(/Exporting (\d+) rows to [^\n]*regimes\.csv[\s\S]*› \1 of \1[\s\S]*wrote \1 rows to/);
  }, 60_000);
});

describe('signals performance', () => {
  it('publishes the numbers an analyst recomputes from the exported regimes and the bundled SPY prices', async () => {
    const exported = await runCli(['signals', 'export', '--limit', '100000'], env);
    // Oldest first, each day with the publication instant the export gives it.
    const regimes = readCsv(exported.stdout)
      .reverse()
      .map((r) => ({
        date: r.date!,
        regime: r.regime!,
        equity_exposure: Number(r.equity_exposure),
        available_at: r.available_at!,
      }));
    for (const r of regimes) expect(r.available_at, r.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const spy = readSpy(path.join(REPO_ROOT, 'data/macro/SPY.csv'));
    // Each regime taken at the first open after its publication, 5 bp per unit of exposure change (the default).
    const days = subscriberReturns(regimes, spy.dates, spy.prices, 5);
    const s = days.map((d) => d.strategy);
    const b = days.map((d) => d.buyAndHold);

    const published = await runCli(['signals', 'performance', '--json'], env);
    expect(published.code, describeRun(published)).toBe(0);
    const p = published.json();
    expect(p.days).toBe(days.length);
    expect(p.cost_bps).toBe(5);
    expect(p.sharpe).toBeCloseTo(sharpe(s), 10);
    expect(p.total_return).toBeCloseTo(wealth(s) - 1, 10);
    expect(p.max_drawdown).toBeCloseTo(maxDrawdown(s), 10);
    expect(p.alpha).toBeCloseTo(alpha(s, b), 10);
    for (const regime of ['expansion', 'recovery', 'tightening', 'risk_off']) {
      const r = days.filter((d) => d.held === regime).map((d) => d.buyAndHold);
      expect(p.by_regime[regime].days, regime).toBe(r.length);
      if (r.length === 0) continue;
      expect(p.by_regime[regime].mean_daily_return).toBeCloseTo(mean(r), 12);
      expect(p.by_regime[regime].hit_rate).toBeCloseTo(r.filter((x) => x > 0).length / r.length, 12);
      expect(p.by_regime[regime].annualized_return).toBeCloseTo(annual(r), 10);
    }
  }, 60_000);
});

describe('signals backtest and forecast', () => {
  it('backtest summarises the window and its strategy; a reversed or empty window is refused', async () => {
    const res = await runCli(['signals', 'backtest', '--start', '2008-09-01', '--end', '2008-12-31', '--json'], env);
    expect(res.code, describeRun(res)).toBe(0);
    const { summary, performance } = res.json();
    const window = readCsv((await runCli(['signals', 'export', '--limit', '100000'], env)).stdout)
      .reverse()
      .filter((r) => r.date! >= '2008-09-01' && r.date! <= '2008-12-31');
    const transitions = window.filter((r, i) => i > 0 && r.regime !== window[i - 1]!.regime).length;
    expect(summary).toMatchObject({ total_days: window.length, transitions, avg_persistence_days: window.length / (transitions + 1) });
    expect(summary.mean_risk_score).toBeCloseTo(window.reduce((a, r) => a + Number(r.risk_score), 0) / window.length, 12);
    const share = (regime: string): number => (100 * window.filter((r) => r.regime === regime).length) / window.length;
    for (const regime of ['expansion', 'recovery', 'tightening', 'risk_off']) expect(summary.regime_distribution[regime]).toBeCloseTo(share(regime), 12);
    // The first day's exposure, taken at its open, comes from the regime published for the trading day before the window.
    expect(performance.days).toBe(window.length);
    expect(performance.cost_bps).toBe(5);

    const reversed = await runCli(['signals', 'backtest', '--start', '2008-12-31', '--end', '2008-09-01'], env);
    expect(reversed.code).toBe(2);
    const empty = await runCli(['signals', 'backtest', '--start', '1990-01-01', '--end', '1990-12-31', '--json'], env);
    expect(empty.code).toBe(3);
    expect(empty.json().error.code).toBe('not_found');
  }, 60_000);

  it('forecast prints the first --horizon days of the published envelope', async () => {
    const res = await runCli(['signals', 'forecast', '--horizon', '3', '--json'], env);
    expect(res.code, describeRun(res)).toBe(0);
    const body = res.json();
    expect(body.horizon).toBe(3);
    expect(body.generated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    expect(body.forecast.map((r: { date: string }) => r.date)).toEqual(['2013-01-02', '2013-01-03', '2013-01-04']);
    for (const r of body.forecast) expect(r.prob_expansion + r.prob_recovery + r.prob_tightening + r.prob_risk_off).toBeCloseTo(1, 12);
    const text = await runCli(['signals', 'forecast'], env);
    expect(text.stdout).toMatch(/forecast from 2012-12-31[\s\S]*date\s+regime\s+confidence\s+risk_score/);
    expect(
      text.stdout
        .trim()
        .split('\n')
        .filter((l) => /^2013-01-\d\d/.test(l)),
    ).toHaveLength(5);
    const bad = await runCli(['signals', 'forecast', '--horizon', '11', '--json'], env);
    expect(bad.code).toBe(2);
    expect(bad.json().error.errors[0]).toMatchObject({ field: '--horizon' });
  }, 60_000);
});

describe("the signal service's cache of the published history", () => {
  it('gives every window the rows a direct read gives, and reloads once a run has published', async () => {
    const cache = new PublishedHistoryCache();
    for (const range of [
      {},
      { start: '2008-09-01', end: '2008-12-31' },
      { start: '2008-09-06' },
      { end: '2007-01-05' },
      { start: '2006-01-01', end: '2006-12-20' },
      { start: '2013-01-01' },
      { start: '2008-10-10', end: '2008-10-10' },
    ]) {
      expect(await cache.window(store.sql, range), JSON.stringify(range)).toEqual(await backtestRows(store.sql, range));
    }
    const before = (await cache.all(store.sql)).length;
    await runPipeline(store.sql, { dataDir: path.join(REPO_ROOT, 'data/macro'), asOf: '2013-01-31', publish: true, seed: 7 });
    const after = await cache.all(store.sql);
    expect(after.length).toBeGreaterThan(before);
    expect(after.at(-1)!.date).toBe('2013-01-31');
  }, 300_000);
});
