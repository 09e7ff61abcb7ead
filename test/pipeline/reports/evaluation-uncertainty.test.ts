/**
 * How sure the evaluation's comparisons are (pipeline/reports/evaluation-uncertainty.ts): the resampled
 * Sharpe ratio is the tables' own, the block length reads the squares as well as the returns, the figures are
 * the same on every run, a clear lead and no lead read as such, and each named window takes its own days.
 */
import { describe, expect, it } from 'vitest';
import { stationaryBlockLength } from '../../../pipeline/performance/block-length.js';
import { deflatedSharpe } from '../../../pipeline/performance/deflated-sharpe.js';
import { calmarRatio, sharpeRatio } from '../../../pipeline/performance/index.js';
import { createRng } from '../../../pipeline/random.js';
import type { EvaluatedDay } from '../../../pipeline/reports/evaluation-days.js';
import {
  BOOTSTRAP_RESAMPLES,
  BOOTSTRAP_SEED,
  evaluationUncertainty,
  jointBlockLength,
  resampleSharpe,
  windowUncertainty,
} from '../../../pipeline/reports/evaluation-uncertainty.js';
import type { ResearchTrials } from '../../../pipeline/reports/research-trials.js';

const TRIALS: ResearchTrials = { source: 'test', trials: 131, sharpe_variance_annualized: 0.04, sharpe_variance_per_day: 0.04 / 252 };

/** A market of n days and a strategy in it for spells of about 60 days, out for others. */
function series(n: number, seed: number): { market: Float64Array; spells: Float64Array } {
  const rng = createRng(seed);
  const market = Float64Array.from({ length: n }, () => 0.0004 + 0.012 * rng.normal());
  let exposure = 1;
  const spells = market.map((m) => {
    if (rng.uniform() < 1 / 60) exposure = 1 - exposure;
    return exposure * m;
  });
  return { market, spells };
}

describe('resampleSharpe', () => {
  it('is the tables’ sharpeRatio', () => {
    const { market, spells } = series(1000, 1);
    for (const x of [market, spells, market.subarray(0, 2)]) expect(Math.abs(resampleSharpe(x)! / sharpeRatio(x)! - 1)).toBeLessThan(1e-12);
    expect(resampleSharpe(new Float64Array(10))).toBeNull();
    expect(resampleSharpe(Float64Array.from([0.01]))).toBeNull();
  });
});

describe('jointBlockLength', () => {
  it('reads the squares: spells in and out of the market need long blocks though the returns themselves are uncorrelated', () => {
    const { spells } = series(3000, 2);
    expect(stationaryBlockLength(spells)).toBeLessThan(5);
    expect(jointBlockLength([spells])).toBeGreaterThan(10);
    expect(jointBlockLength([spells])).toBe(stationaryBlockLength(spells.map((x) => x * x)));
  });
});

describe('windowUncertainty', () => {
  const { market, spells } = series(1500, 3);

  it('gives the same figures on every run, with the tables’ observed differences', () => {
    const returns = { regime: spells, ma200: market.map((m, i) => (i % 400 < 300 ? m : 0)), buy_and_hold: market };
    const u = windowUncertainty(returns, TRIALS, 500);
    expect(windowUncertainty(returns, TRIALS, 500)).toEqual(u);
    expect(u).toMatchObject({ days: 1500, resamples: 500, seed: BOOTSTRAP_SEED });
    expect(u.mean_block).toBe(jointBlockLength([returns.regime, returns.ma200, returns.buy_and_hold]));
    for (const b of ['ma200', 'buy_and_hold'] as const) {
      const c = u.versus[b]!;
      expect(c.sharpe.observed).toBe(sharpeRatio(spells)! - sharpeRatio(returns[b])!);
      expect(c.calmar.observed).toBe(calmarRatio(spells)! - calmarRatio(returns[b])!);
      for (const f of [c.sharpe, c.calmar]) {
        expect(f.resamples + f.undefined_resamples).toBe(500);
        expect(f.ci95![0]).toBeLessThanOrEqual(f.ci90![0]);
        expect(f.ci90![0]).toBeLessThanOrEqual(f.ci90![1]);
        expect(f.ci90![1]).toBeLessThanOrEqual(f.ci95![1]);
        expect(f.p_lead_le_0).toBeGreaterThanOrEqual(0);
        expect(f.p_lead_le_0).toBeLessThanOrEqual(1);
      }
    }
    expect(u.deflated_sharpe).toEqual({ ...deflatedSharpe(spells, 131, 0.04 / 252), source: 'test' });
  });

  it('reads a clear lead as one, and the same strategy as no lead at all', () => {
    const ahead = market.map((m) => m + 0.002);
    const lead = windowUncertainty({ regime: ahead, ma200: market, buy_and_hold: market }, null, 500);
    expect(lead.versus.ma200!.sharpe.ci90![0]).toBeGreaterThan(0);
    expect(lead.versus.ma200!.sharpe.p_lead_le_0).toBe(0);
    const same = windowUncertainty({ regime: market, ma200: market, buy_and_hold: market }, null, 200);
    expect(same.versus.buy_and_hold!.sharpe).toMatchObject({ observed: 0, ci90: [0, 0], p_lead_le_0: 1 });
    expect(same.versus.buy_and_hold!.calmar).toMatchObject({ observed: 0, ci95: [0, 0], p_lead_le_0: 1 });
  });

  it('has no comparison with fewer than 3 days, and no deflated Sharpe ratio without trials', () => {
    const two = Float64Array.from([0.01, -0.01]);
    expect(windowUncertainty({ regime: two, ma200: two, buy_and_hold: two }, TRIALS)).toMatchObject({
      days: 2,
      mean_block: null,
      versus: { ma200: null, buy_and_hold: null },
    });
    expect(windowUncertainty({ regime: market, ma200: market, buy_and_hold: market }, null, 10).deflated_sharpe).toBeNull();
  });

  it('uses 5,000 resamples and seed 1994 unless told otherwise', () => {
    expect([BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED]).toEqual([5000, 1994]);
  });
});

describe('evaluationUncertainty', () => {
  it('takes each named window’s own days', () => {
    const { market, spells } = series(40, 4);
    const dates = Array.from({ length: 40 }, (_, i) => `20${i < 25 ? '16' : '17'}-01-${String((i % 25) + 1).padStart(2, '0')}`);
    const days = dates.map((date, i) => ({
      date,
      returns: { regime: spells[i]!, ma200: market[i]! * 0.5, buy_and_hold: market[i]! },
    })) as unknown as EvaluatedDay[];
    const u = evaluationUncertainty(
      days,
      {
        full: { from: '2007-01-01', to: '2025-12-31' },
        in_sample: { from: '2007-01-01', to: '2016-12-31' },
        out_of_sample: { from: '2017-01-01', to: '2025-12-31' },
      },
      { trials: TRIALS },
    );
    expect([u.full.days, u.in_sample.days, u.out_of_sample.days]).toEqual([40, 25, 15]);
    expect(u.out_of_sample.deflated_sharpe!.sharpe).toBe(deflatedSharpe(spells.subarray(25), 131, 0.04 / 252)!.sharpe);
  });
});
