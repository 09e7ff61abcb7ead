/**
 * How sure `tradeseal quant evaluate`'s comparisons are, through the real command on a real store: the
 * published history of test/cli/quant-evaluate.test.ts (300 NYSE trading days from 2016-01-04, SPY at 100 for
 * 200 days and then alternately up 2 % and down 1 %, tightening on the first 250 days and expansion after; the
 * last 100 days evaluated). --json carries, per named window, the stationary bootstrap of the Sharpe and Calmar
 * leads over the 200-day rule and buy-and-hold and the regime strategy's deflated Sharpe ratio against the
 * variants of data/research/variants.json; the same figures on every run; the text prints them.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Evaluation } from '../../pipeline/reports/evaluate.js';
import { loadResearchTrials } from '../../pipeline/reports/research-trials.js';
import type { Regime } from '../../src/core/vocabulary.js';
import { cliEnv, describeRun, REPO_ROOT, runCli, tempHome, type CliEnv, type CliResult } from '../helpers/cli.js';
import { testStore, type TestStore } from '../helpers/db.js';

const home = tempHome();
let store: TestStore;
let env: CliEnv;

const DATES = fs
  .readFileSync(path.join(REPO_ROOT, 'data/macro/SPY.csv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => l.slice(0, 10))
  .filter((d) => d >= '2016-01-04')
  .slice(0, 300);
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
  store = await testStore();
  env = cliEnv(home, store.url);
  const runId = randomUUID();
  await store.sql`insert into signal_days ${store.sql(DATES.map((d, i) => signalRow(d, regimeOf(i), runId)))}`;
  await store.sql`insert into market_days ${store.sql(DATES.map((d, i) => ({ date: d, spy_open: CLOSES[i - 1] ?? CLOSES[i]!, spy_close: CLOSES[i]!, gld_close: null })))}`;
}, 300_000);
afterAll(async () => {
  await store?.close();
});

const evaluate = (...flags: string[]): Promise<CliResult> => runCli(['quant', 'evaluate', ...flags], env);

describe('tradeseal quant evaluate: how sure the leads are', () => {
  it('answers, per window, the bootstrap of the leads and the deflated Sharpe ratio, the same on every run', async () => {
    const [first, second] = await Promise.all([evaluate('--json'), evaluate('--json')]);
    for (const res of [first, second]) expect(res.code, describeRun(res)).toBe(0);
    const e = first.json<Evaluation>();
    expect(second.json<Evaluation>().uncertainty).toEqual(e.uncertainty);
    const u = e.uncertainty!;
    expect([u.full.days, u.in_sample.days, u.out_of_sample.days]).toEqual([e.windows.full.days, e.windows.in_sample.days, e.windows.out_of_sample.days]);
    const trials = loadResearchTrials();
    for (const name of ['full', 'in_sample', 'out_of_sample'] as const) {
      const w = u[name];
      expect(w).toMatchObject({ resamples: 5000, seed: 1994 });
      expect(w.mean_block).toBeGreaterThanOrEqual(1);
      for (const b of ['ma200', 'buy_and_hold'] as const) {
        const s = e.windows[name].strategies;
        const c = w.versus[b]!;
        // The observed leads are the tables' figures; the intervals nest.
        expect(c.sharpe.observed).toBeCloseTo(s.regime.sharpe! - s[b].sharpe!, 12);
        expect(c.calmar.observed).toBeCloseTo(s.regime.calmar! - s[b].calmar!, 12);
        for (const f of [c.sharpe, c.calmar]) {
          expect(f.resamples + f.undefined_resamples).toBe(5000);
          expect(f.ci95![0]).toBeLessThanOrEqual(f.ci90![0]);
          expect(f.ci90![1]).toBeLessThanOrEqual(f.ci95![1]);
          expect(f.p_lead_le_0).toBeGreaterThanOrEqual(0);
          expect(f.p_lead_le_0).toBeLessThanOrEqual(1);
        }
      }
      expect(w.deflated_sharpe).toMatchObject({
        observations: w.days,
        trials: trials.trials,
        trial_variance: trials.sharpe_variance_per_day,
        source: trials.source,
      });
      expect(w.deflated_sharpe!.sharpe * Math.sqrt(252)).toBeCloseTo(e.windows[name].strategies.regime.sharpe!, 10);
      expect(w.deflated_sharpe!.dsr).toBeLessThan(w.deflated_sharpe!.psr);
    }
  }, 300_000);

  it('prints the bootstrap table and the deflated Sharpe ratio table with the figures of --json', async () => {
    const [text, json] = await Promise.all([evaluate(), evaluate('--json')]);
    expect(text.code, describeRun(text)).toBe(0);
    const u = json.json<Evaluation>().uncertainty!;
    const out = text.stdout;
    expect(out).toContain('how sure the leads are: stationary block bootstrap (Politis and Romano 1994)');
    expect(out).toMatch(/^window\s+versus\s+days\s+b\s+sharpe lead\s+90 %\s+95 %\s+P\(lead ≤ 0\)\s+calmar lead\s+90 %\s+95 %\s+P\(lead ≤ 0\)$/m);
    const c = u.full.versus.ma200!;
    const row = [
      'full',
      '200-day MA rule',
      String(u.full.days),
      u.full.mean_block!.toFixed(1),
      c.sharpe.observed!.toFixed(3),
      `${c.sharpe.ci90![0].toFixed(3)} to ${c.sharpe.ci90![1].toFixed(3)}`,
      `${c.sharpe.ci95![0].toFixed(3)} to ${c.sharpe.ci95![1].toFixed(3)}`,
      c.sharpe.p_lead_le_0!.toFixed(3),
    ];
    expect(out).toMatch(new RegExp(`^${row.map((x) => x.replace(/[.()+]/g, '\\$&')).join('\\s+')}\\s`, 'm'));
    expect(out).toContain(`against the best of N = ${loadResearchTrials().trials} variants tried in the research`);
    const d = u.in_sample.deflated_sharpe!;
    expect(out).toMatch(
      new RegExp(
        `^in-sample\\s+${d.observations}\\s+${(d.sharpe * Math.sqrt(252)).toFixed(3)}\\s+[-\\d.]+\\s+[-\\d.]+\\s+${(d.expected_max_sharpe * Math.sqrt(252)).toFixed(3)}\\s+${d.psr.toFixed(3)}\\s+${d.dsr.toFixed(3)}$`,
        'm',
      ),
    );
  }, 300_000);
});
