/**
 * `tradeseal quant evaluate` on a published history made for the test, whose figures are worked out here: 300
 * NYSE trading days from 2016-01-04 (SPY.csv's), SPY at 100 for 200 days and then alternately up 2 % and down
 * 1 %, each open at the close before, tightening published on the first 250 days and expansion after. The last
 * 100 days are evaluated (each has 200 closes before it). The rows are written into the store's tables directly,
 * as a run would publish them; the command reads them back, prints the tables and answers the figures with
 * --json, net of SIGNAL_COST_BPS (5 bp) or --cost-bps. Also: nothing published is exit 3, bad --from/--to and
 * --cost-bps exit 2, a store out of reach exit 6.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Evaluation } from '../../pipeline/reports/evaluate.js';
import type { Regime } from '../../src/core/vocabulary.js';
import { cliEnv, describeRun, REPO_ROOT, runCli, tempHome, type CliEnv, type CliResult } from '../helpers/cli.js';
import { testStore, type TestStore } from '../helpers/db.js';

const home = tempHome();
let store: TestStore;
let empty: TestStore;
let env: CliEnv;

const DATES = fs
  .readFileSync(path.join(REPO_ROOT, 'data/macro/SPY.csv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => l.slice(0, 10))
  .filter((d) => d >= '2016-01-04')
  .slice(0, 300);
const EVALUATED = DATES.slice(200);
const IN_2016 = EVALUATED.filter((d) => d <= '2016-12-31');
const IN_2017 = EVALUATED.filter((d) => d >= '2017-01-01');
const CLOSES: number[] = [];
for (let i = 0; i < DATES.length; i++) CLOSES.push(i < 200 ? 100 : CLOSES[i - 1]! * (i % 2 === 0 ? 1.02 : 0.99));
const regimeOf = (i: number): Regime => (i < 250 ? 'tightening' : 'expansion');

/** The rows of a published day, with neutral numbers where the evaluation reads nothing. */
function signalRow(date: string, regime: Regime, runId: string): Record<string, unknown> {
  const tightening = regime === 'tightening' ? 1 : 0;
  return {
    date,
    run_id: runId,
    regime,
    prob_expansion: 1 - tightening,
    prob_recovery: 0,
    prob_tightening: tightening,
    prob_risk_off: 0,
    risk_score: tightening ? 0.75 : 0,
    confidence: 'HIGH',
    persistence_days: 1,
    expected_duration_remaining_days: 10,
    level_bn: 5000,
    change_4w_bn: 0,
    liquidity_zscore: 0,
    liquidity_trend: 'FLAT',
    pc1: 0,
    pc2: 0,
    pc3: 0,
    pc4: 0,
    variance_explained_pct: [40, 20, 10, 5],
    pca_fit_date: DATES[0],
    hmm_fit_date: DATES[0],
    data_vintage: `${date}T23:59:59Z`,
  };
}

beforeAll(async () => {
  [store, empty] = await Promise.all([testStore(), testStore()]);
  env = cliEnv(home, store.url);
  const runId = randomUUID();
  await store.sql`insert into signal_days ${store.sql(DATES.map((d, i) => signalRow(d, regimeOf(i), runId)))}`;
  await store.sql`insert into market_days ${store.sql(DATES.map((d, i) => ({ date: d, spy_open: CLOSES[i - 1] ?? CLOSES[i]!, spy_close: CLOSES[i]!, gld_close: null })))}`;
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
    expect(e.cost_bps).toBe(5);
    expect(e.evaluable).toEqual({ first_day: EVALUATED[0], last_day: EVALUATED.at(-1), days: 100 });
    expect(e.windows.full).toMatchObject({ from: '2007-01-01', to: '2025-12-31', first_day: EVALUATED[0], last_day: EVALUATED.at(-1), days: 100 });
    expect(e.windows.in_sample).toMatchObject({ first_day: EVALUATED[0], last_day: '2016-12-30', days: IN_2016.length });
    expect(e.windows.out_of_sample).toMatchObject({ first_day: '2017-01-03', last_day: EVALUATED.at(-1), days: IN_2017.length });
    expect(e.years.map((y) => [y.name, y.days])).toEqual([
      ['2016', IN_2016.length],
      ['2017', IN_2017.length],
    ]);

    // Buy-and-hold: +2 %, −1 %, … 50 times each over 100 days (bought at the first open, no cost after it).
    const bh = e.windows.full.strategies.buy_and_hold;
    expect(bh.sharpe).toBeCloseTo((0.005 / (0.015 * Math.sqrt(100 / 99))) * Math.sqrt(252), 8);
    expect(bh.cagr).toBeCloseTo((1.02 * 0.99) ** ((50 * 252) / 100) - 1, 8);
    expect(bh.max_drawdown).toBeCloseTo(-0.01, 12);
    expect(bh.calmar).toBeCloseTo(((1.02 * 0.99) ** ((50 * 252) / 100) - 1) / 0.01, 6);
    expect(bh).toMatchObject({ avg_exposure: 1, turnover_per_year: 0, changes_per_year: 0 });
    // The regime strategy: tightening (0.25) held on 51 days, expansion (1) on 49, one change of 0.75.
    const regime = e.windows.full.strategies.regime;
    // Its wealth: 0.25 × the moves on days 200 to 250, 1 × them from 251, the change paid at 5 bp at 251's open.
    let wealth = 1;
    for (let i = 200; i < 300; i++) wealth *= (1 + (i <= 250 ? 0.25 : 1) * (CLOSES[i]! / CLOSES[i - 1]! - 1)) * (i === 251 ? 1 - 0.0005 * 0.75 : 1);
    expect(regime.cagr).toBeCloseTo(wealth ** (252 / 100) - 1, 10);
    expect(regime.avg_exposure).toBeCloseTo((51 * 0.25 + 49) / 100, 12);
    expect(regime.turnover_per_year).toBeCloseTo((0.75 * 252) / 100, 12);
    expect(regime.changes_per_year).toBeCloseTo(252 / 100, 12);
    // The 200-day rule: out on the first day (a close of 100, its mean 100), in on every day after.
    const ma = e.windows.full.strategies.ma200;
    expect(ma.avg_exposure).toBeCloseTo(0.99, 12);
    expect(ma.changes_per_year).toBeCloseTo(252 / 100, 12);
    expect(e.windows.out_of_sample.strategies.ma200).toMatchObject({ avg_exposure: 1, turnover_per_year: 0, changes_per_year: 0 });
    // Published on the evaluated days of 2016: tightening on days 200 to 249 (50 days), then expansion.
    expect(e.years[0]!.regime_share).toEqual({ expansion: (IN_2016.length - 50) / IN_2016.length, recovery: 0, tightening: 50 / IN_2016.length, risk_off: 0 });
  }, 300_000);

  it('prints the tables of npm run bench:signal: windows, years, regime shares and the verdict', async () => {
    const [text, json] = await Promise.all([evaluate(), evaluate('--json')]);
    expect(text.code, describeRun(text)).toBe(0);
    const out = text.stdout;
    expect(out).toMatch(new RegExp(`^the published regimes on SPY, ${EVALUATED[0]} to ${EVALUATED.at(-1)}, 100 days:`));
    expect(out).toContain(
      `windows: full 2007-01-01 to 2025-12-31 (${EVALUATED[0]} to ${EVALUATED.at(-1)}, 100 days); in-sample 2007-01-01 to 2016-12-31 (${EVALUATED[0]} to 2016-12-30, ${IN_2016.length} days)`,
    );
    expect(out).toMatch(/^window\s+strategy\s+sharpe\s+CAGR %\s+max DD %\s+calmar\s+avg exposure\s+turnover\/yr\s+changes\/yr$/m);
    expect(out).toMatch(/^full\s+buy-and-hold\s+5\.265\s+\d+\.\d\d\s+-1\.00\s+[\d.]+\s+1\.000\s+0\.00\s+0\.00$/m);
    expect(out).toMatch(/^full\s+regime strategy\s+[-\d.]+\s+[-\d.]+\s+[-\d.]+\s+[-\d.]+\s+0\.618\s+1\.89\s+2\.52$/m);
    expect(out).toMatch(/^out-of-sample\s+200-day MA rule\s+[-\d.]+\s+[-\d.]+\s+[-\d.]+\s+[-\d.]+\s+1\.000\s+0\.00\s+0\.00$/m);
    expect(out).toMatch(/^year\s+days\s+strategy\s+sharpe/m);
    expect(out).toMatch(new RegExp(`^2017\\s+${IN_2017.length}\\s+200-day MA rule\\s`, 'm'));
    const pct = (n: number): string => ((100 * n) / IN_2016.length).toFixed(1).replace('.', '\\.');
    expect(out).toMatch(new RegExp(`^2016\\s+${IN_2016.length}\\s+${pct(IN_2016.length - 50)}\\s+0\\.0\\s+${pct(50)}\\s+0\\.0$`, 'm'));
    // The verdict line says what the JSON's verdict says.
    const holds = json.json<Evaluation>().verdict.holds;
    expect(out).toMatch(
      new RegExp(
        `^verdict: the regime strategy is ahead of the 200-day rule on Sharpe and Calmar over the full window \\(2007-01-01 to 2025-12-31\\) and not behind it out of sample: ${holds ? 'YES' : 'NO'} \\(full: Sharpe`,
        'm',
      ),
    );
  }, 300_000);

  it('narrows every window to --from and --to; a window outside them has no figures', async () => {
    const res = await evaluate('--from', '2017-01-01', '--to', '2017-01-31', '--json');
    expect(res.code, describeRun(res)).toBe(0);
    const e = res.json<Evaluation>();
    expect(e.windows.full).toMatchObject({
      from: '2017-01-01',
      to: '2017-01-31',
      first_day: '2017-01-03',
      last_day: '2017-01-31',
      days: IN_2017.filter((d) => d <= '2017-01-31').length,
    });
    expect(e.windows.in_sample).toMatchObject({ days: 0, first_day: null });
    expect(e.windows.in_sample.strategies.regime.sharpe).toBeNull();
    expect(e.years.map((y) => y.name)).toEqual(['2017']);
    // Expansion was published before the window began: the whole window holds it.
    expect(e.windows.full.strategies.regime).toMatchObject({ avg_exposure: 1, turnover_per_year: 0, changes_per_year: 0 });
  }, 300_000);
});

describe('the cost it is net of', () => {
  it('takes SIGNAL_COST_BPS, and --cost-bps for one run: only the days that trade pay it', async () => {
    const [free, flag, setting] = await Promise.all([
      evaluate('--cost-bps', '0', '--json'),
      evaluate('--cost-bps', '20', '--json'),
      runCli(['quant', 'evaluate', '--json'], { ...env, SIGNAL_COST_BPS: '20' }),
    ]);
    for (const res of [free, flag, setting]) expect(res.code, describeRun(res)).toBe(0);
    const [e0, e20, s20] = [free, flag, setting].map((res) => res.json<Evaluation>());
    expect([e0!.cost_bps, e20!.cost_bps, s20!.cost_bps]).toEqual([0, 20, 20]);
    expect(s20!.windows).toEqual(e20!.windows);
    // The regime strategy trades once (0.75 at day 251's open), the 200-day rule once (1 at day 201's open),
    // buy-and-hold never: each one's wealth is the free one's times (1 − 0.002 × what it traded).
    const growth = (cagr: number | null): number => (1 + cagr!) ** (100 / 252);
    const f0 = e0!.windows.full.strategies;
    const f20 = e20!.windows.full.strategies;
    expect(growth(f20.regime.cagr) / growth(f0.regime.cagr)).toBeCloseTo(1 - 0.002 * 0.75, 12);
    expect(growth(f20.ma200.cagr) / growth(f0.ma200.cagr)).toBeCloseTo(1 - 0.002, 12);
    expect(f20.buy_and_hold).toEqual(f0.buy_and_hold);
  }, 300_000);

  it('refuses a cost that is not a number of basis points from 0 to 10000 (exit 2)', async () => {
    for (const bad of ['-1', 'cheap', '10001']) {
      const res = await evaluate('--cost-bps', bad, '--json');
      expect(res.code, describeRun(res)).toBe(2);
      expect(res.json().error).toMatchObject({
        code: 'validation_failed',
        errors: [{ field: '--cost-bps', message: expect.stringContaining('basis points') }],
      });
    }
  }, 300_000);
});

describe('what it refuses', () => {
  it('nothing published is exit 3, saying to run the pipeline', async () => {
    const res = await runCli(['quant', 'evaluate', '--json'], cliEnv(home, empty.url));
    expect(res.code, describeRun(res)).toBe(3);
    expect(res.json().error).toMatchObject({
      code: 'not_found',
      detail: expect.stringContaining('no regime is published'),
      hint: expect.stringContaining('tradeseal pipeline run'),
    });
  }, 300_000);

  it('a window that ends before it starts, or a date that is not one, is exit 2; a window without an evaluated day exit 3', async () => {
    const [reversed, date, early] = await Promise.all([
      evaluate('--from', '2017-02-01', '--to', '2017-01-01', '--json'),
      evaluate('--to', '2017-02-30', '--json'),
      evaluate('--to', '2016-06-30', '--json'),
    ]);
    expect(reversed.code, describeRun(reversed)).toBe(2);
    expect(reversed.json().error).toMatchObject({
      code: 'validation_failed',
      errors: [{ field: '--from', message: '2017-02-01 is after the end of the window (2017-01-01)' }],
    });
    expect(date.code, describeRun(date)).toBe(2);
    expect(date.json().error).toMatchObject({ code: 'usage_error', detail: expect.stringContaining('"2017-02-30" is not a calendar date') });
    expect(early.code, describeRun(early)).toBe(3);
    expect(early.json().error.detail).toBe(
      `no day between 2007-01-01 and 2016-06-30 can be evaluated: the evaluated days run from ${EVALUATED[0]} to ${EVALUATED.at(-1)}`,
    );
  }, 300_000);

  it('a store out of reach is exit 6', async () => {
    const res = await runCli(['quant', 'evaluate', '--json'], cliEnv(home, 'postgres://tradeseal@127.0.0.1:1/unreachable'));
    expect(res.code, describeRun(res)).toBe(6);
    expect(res.json().error.code).toBe('service_unavailable');
  }, 300_000);
});
