/**
 * `tradeseal quant evaluate` on a published history made for the test, whose figures are worked out here: 300
 * weekdays from 2016-01-04, SPY at 100 for 200 days and then alternately up 2 % and down 1 %, tightening
 * published until 2016-12-16 and expansion from 2016-12-19. The last 100 days are evaluated (each has 200 closes
 * before it). The rows are written into the store's tables directly, as a run would publish them; the command
 * reads them back, prints the tables and answers the figures with --json. Also: nothing published is exit 3,
 * bad --from/--to exit 2, a store out of reach exit 6.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Evaluation } from '../../pipeline/reports/evaluate.js';
import type { Regime } from '../../src/engine/vocabulary.js';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv, type CliResult } from '../helpers/cli.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { weekdays } from '../helpers/weekdays.js';

const home = tempHome();
let store: TestStore;
let empty: TestStore;
let env: CliEnv;


const DATES = weekdays('2016-01-04', 300);
const CLOSES: number[] = [];
for (let i = 0; i < DATES.length; i++) CLOSES.push(i < 200 ? 100 : CLOSES[i - 1]! * (i % 2 === 0 ? 1.02 : 0.99));
const regimeOf = (i: number): Regime => (i < 250 ? 'tightening' : 'expansion');

/** The rows of a published day, with neutral numbers where the evaluation reads nothing. */
function signalRow(date: string, regime: Regime, runId: string): Record<string, unknown> {
  const tightening = regime === 'tightening' ? 1 : 0;
  return {
    date, run_id: runId, regime, prob_expansion: 1 - tightening, prob_recovery: 0, prob_tightening: tightening, prob_risk_off: 0,
    risk_score: tightening ? 0.75 : 0, confidence: 'HIGH', persistence_days: 1, expected_duration_remaining_days: 10,
    level_bn: 5000, change_4w_bn: 0, liquidity_zscore: 0, liquidity_trend: 'FLAT', pc1: 0, pc2: 0, pc3: 0, pc4: 0,
    variance_explained_pct: [40, 20, 10, 5], pca_fit_date: DATES[0], hmm_fit_date: DATES[0], data_vintage: `${date}T23:59:59Z`,
  };
}

beforeAll(async () => {
  [store, empty] = await Promise.all([testStore(), testStore()]);
  env = cliEnv(home, store.url);
  const runId = randomUUID();
  await store.sql`insert into signal_days ${store.sql(DATES.map((d, i) => signalRow(d, regimeOf(i), runId)))}`;
  await store.sql`insert into market_days ${store.sql(DATES.map((d, i) => ({ date: d, spy_close: CLOSES[i]!, gld_close: null })))}`;
}, 300_000);
afterAll(async () => {
  await store?.close();
  await empty?.close();
});

const evaluate = (...flags: string[]): Promise<CliResult> => runCli(['quant', 'evaluate', ...flags], env);

describe('tradeseal quant evaluate', () => {
  it('judges the three strategies on the same 100 days, with the figures worked out by hand', async () => {
    const res = await evaluate('--json');
    expect(res.code, describeRun(res)).toBe(0);
    const e = res.json<Evaluation>();
    expect(e.evaluable).toEqual({ first_day: '2016-10-10', last_day: '2017-02-24', days: 100 });
    expect(e.windows.full).toMatchObject({ from: '2007-01-01', to: '2025-12-31', first_day: '2016-10-10', last_day: '2017-02-24', days: 100 });
    expect(e.windows.in_sample).toMatchObject({ first_day: '2016-10-10', last_day: '2016-12-30', days: 60 });
    expect(e.windows.out_of_sample).toMatchObject({ first_day: '2017-01-02', last_day: '2017-02-24', days: 40 });
    expect(e.years.map((y) => [y.name, y.days])).toEqual([['2016', 60], ['2017', 40]]);

    // Buy-and-hold: +2 %, −1 %, … 50 times each over 100 days.
    const bh = e.windows.full.strategies.buy_and_hold;
    expect(bh.sharpe).toBeCloseTo((0.005 / (0.015 * Math.sqrt(100 / 99))) * Math.sqrt(252), 8);
    expect(bh.cagr).toBeCloseTo((1.02 * 0.99) ** (50 * 252 / 100) - 1, 8);
    expect(bh.max_drawdown).toBeCloseTo(-0.01, 12);
    expect(bh.calmar).toBeCloseTo(((1.02 * 0.99) ** (50 * 252 / 100) - 1) / 0.01, 6);
    expect(bh).toMatchObject({ avg_exposure: 1, turnover_per_year: 0, changes_per_year: 0 });
    // The regime strategy: tightening (0.25) held on 51 days, expansion (1) on 49, one change of 0.75.
    const regime = e.windows.full.strategies.regime;
    expect(regime.avg_exposure).toBeCloseTo((51 * 0.25 + 49) / 100, 12);
    expect(regime.turnover_per_year).toBeCloseTo((0.75 * 252) / 100, 12);
    expect(regime.changes_per_year).toBeCloseTo(252 / 100, 12);
    // The 200-day rule: out on the first day (a close of 100, its mean 100), in on every day after.
    const ma = e.windows.full.strategies.ma200;
    expect(ma.avg_exposure).toBeCloseTo(0.99, 12);
    expect(ma.changes_per_year).toBeCloseTo(252 / 100, 12);
    expect(e.windows.out_of_sample.strategies.ma200).toMatchObject({ avg_exposure: 1, turnover_per_year: 0, changes_per_year: 0 });
    // Published on the evaluated days of 2016: tightening until 2016-12-16 (50 days), then expansion (10).
    expect(e.years[0]!.regime_share).toEqual({ expansion: 10 / 60, recovery: 0, tightening: 50 / 60, risk_off: 0 });
  }, 300_000);

  it('prints the tables of npm run bench:signal: windows, years, regime shares and the verdict', async () => {
    const [text, json] = await Promise.all([evaluate(), evaluate('--json')]);
    expect(text.code, describeRun(text)).toBe(0);
    const out = text.stdout;
    expect(out).toMatch(/^the published regimes on SPY, 2016-10-10 to 2017-02-24, 100 days:/);
    expect(out).toContain('windows: full 2007-01-01 to 2025-12-31 (2016-10-10 to 2017-02-24, 100 days); in-sample 2007-01-01 to 2016-12-31 (2016-10-10 to 2016-12-30, 60 days)');
    expect(out).toMatch(/^window\s+strategy\s+sharpe\s+CAGR %\s+max DD %\s+calmar\s+avg exposure\s+turnover\/yr\s+changes\/yr$/m);
    expect(out).toMatch(/^full\s+buy-and-hold\s+5\.265\s+\d+\.\d\d\s+-1\.00\s+[\d.]+\s+1\.000\s+0\.00\s+0\.00$/m);
    expect(out).toMatch(/^full\s+regime strategy\s+[-\d.]+\s+[-\d.]+\s+[-\d.]+\s+[-\d.]+\s+0\.618\s+1\.89\s+2\.52$/m);
    expect(out).toMatch(/^out-of-sample\s+200-day MA rule\s+[-\d.]+\s+[-\d.]+\s+[-\d.]+\s+[-\d.]+\s+1\.000\s+0\.00\s+0\.00$/m);
    expect(out).toMatch(/^year\s+days\s+strategy\s+sharpe/m);
    expect(out).toMatch(/^2017\s+40\s+200-day MA rule\s/m);
    expect(out).toMatch(/^2016\s+60\s+16\.7\s+0\.0\s+83\.3\s+0\.0$/m);
    // The verdict line says what the JSON's verdict says.
    const holds = json.json<Evaluation>().verdict.holds;
    expect(out).toMatch(new RegExp(`^verdict: the regime strategy is ahead of the 200-day rule on Sharpe and Calmar over the full window \\(2007-01-01 to 2025-12-31\\) and not behind it out of sample: ${holds ? 'YES' : 'NO'} \\(full: Sharpe`, 'm'));
  }, 300_000);

  it('narrows every window to --from and --to; a window outside them has no figures', async () => {
    const res = await evaluate('--from', '2017-01-01', '--to', '2017-01-31', '--json');
    expect(res.code, describeRun(res)).toBe(0);
    const e = res.json<Evaluation>();
    expect(e.windows.full).toMatchObject({ from: '2017-01-01', to: '2017-01-31', first_day: '2017-01-02', last_day: '2017-01-31', days: 22 });
    expect(e.windows.in_sample).toMatchObject({ days: 0, first_day: null });
    expect(e.windows.in_sample.strategies.regime.sharpe).toBeNull();
    expect(e.years.map((y) => y.name)).toEqual(['2017']);
    // Expansion was published before the window began: the whole window holds it.
    expect(e.windows.full.strategies.regime).toMatchObject({ avg_exposure: 1, turnover_per_year: 0, changes_per_year: 0 });
  }, 300_000);
});

describe('what it refuses', () => {
  it('nothing published is exit 3, saying to run the pipeline', async () => {
    const res = await runCli(['quant', 'evaluate', '--json'], cliEnv(home, empty.url));
    expect(res.code, describeRun(res)).toBe(3);
    expect(res.json().error).toMatchObject({ code: 'not_found', detail: expect.stringContaining('no regime is published'), hint: expect.stringContaining('tradeseal pipeline run') });
  }, 300_000);

  it('a window that ends before it starts, or a date that is not one, is exit 2; a window without an evaluated day exit 3', async () => {
    const [reversed, date, early] = await Promise.all([
      evaluate('--from', '2017-02-01', '--to', '2017-01-01', '--json'),
      evaluate('--to', '2017-02-30', '--json'),
      evaluate('--to', '2016-06-30', '--json'),
    ]);
    expect(reversed.code, describeRun(reversed)).toBe(2);
    expect(reversed.json().error).toMatchObject({ code: 'validation_failed', errors: [{ field: '--from', message: '2017-02-01 is after the end of the window (2017-01-01)' }] });
    expect(date.code, describeRun(date)).toBe(2);
    expect(date.json().error).toMatchObject({ code: 'usage_error', detail: expect.stringContaining('"2017-02-30" is not a calendar date') });
    expect(early.code, describeRun(early)).toBe(3);
    expect(early.json().error.detail).toBe('no day between 2007-01-01 and 2016-06-30 can be evaluated: the evaluated days run from 2016-10-10 to 2017-02-24');
  }, 300_000);

  it('a store out of reach is exit 6', async () => {
    const res = await runCli(['quant', 'evaluate', '--json'], cliEnv(home, 'postgres://tradeseal@127.0.0.1:1/unreachable'));
    expect(res.code, describeRun(res)).toBe(6);
    expect(res.json().error.code).toBe('service_unavailable');
  }, 300_000);
});
