/**
 * The probabilistic and deflated Sharpe ratios (pipeline/performance/deflated-sharpe.ts):
 *
 * - the worked example of Bailey and López de Prado, "The Deflated Sharpe Ratio" (Journal of Portfolio
 *   Management 40(5), 2014; SSRN 2460551), section "A numerical example": N = 100 independent trials whose
 *   annualised Sharpe ratios vary with V = 1/2, the best an annualised 2.5 over five years of daily returns
 *   (T = 1,250, 250 a year), skewness −3 and kurtosis 10; the paper prints SR0 = 0.1132 (per day) and
 *   DSR = 0.9004, which falls short of 0.95;
 * - PSR against the minimum track record length of Bailey and López de Prado, "The Sharpe Ratio Efficient
 *   Frontier" (Journal of Risk 15(2), 2012): an annualised Sharpe ratio of 2 against a benchmark of 1, daily,
 *   normal returns, needs 2.73 years to reach PSR = 0.95, so PSR over 2.73 × 252 days is 0.95;
 * - the sample moments and PSR of a short series against scipy 1.17 (`scipy.stats.skew`,
 *   `kurtosis(fisher=False)`, `norm.cdf`), a second implementation.
 */
import { describe, expect, it } from 'vitest';
import { deflatedSharpe, expectedMaxSharpe, probabilisticSharpe, returnMoments, trialVariance } from '../../../pipeline/performance/deflated-sharpe.js';
import { createRng } from '../../../pipeline/random.js';

describe('the paper’s numerical example (Bailey and López de Prado 2014)', () => {
  const perDay = (annual: number): number => annual / Math.sqrt(250);
  const sr = perDay(2.5);
  const variance = 0.5 / 250;

  it('SR0, the expected best of 100 worthless trials, is 0.1132 per day', () => {
    const sr0 = expectedMaxSharpe(100, variance);
    expect(sr0.toFixed(4)).toBe('0.1132');
  });

  it('DSR = PSR(SR0) is 0.9004: the discovery is rejected at 95 %', () => {
    const dsr = probabilisticSharpe(sr, expectedMaxSharpe(100, variance), 1250, -3, 10);
    expect(dsr.toFixed(4)).toBe('0.9004');
    expect(dsr).toBeLessThan(0.95);
  });

  it('reads the kurtosis as it is, not in excess of 3 (an excess kurtosis of 7 would give another figure)', () => {
    expect(probabilisticSharpe(sr, expectedMaxSharpe(100, variance), 1250, -3, 7).toFixed(4)).not.toBe('0.9004');
  });
});

describe('probabilisticSharpe', () => {
  it('is 0.95 at the minimum track record length of the 2012 paper (SR 2 against 1, daily, normal: 2.73 years)', () => {
    const psr = probabilisticSharpe(2 / Math.sqrt(252), 1 / Math.sqrt(252), Math.round(2.73 * 252), 0, 3);
    expect(Math.abs(psr - 0.95)).toBeLessThan(5e-4);
  });

  it('matches scipy on a short series, against 0 and against 0.05', () => {
    const x = Float64Array.from([0.01, -0.02, 0.015, 0.003, -0.007, 0.021, -0.03, 0.004, 0, 0.012]);
    const m = returnMoments(x);
    expect(m.observations).toBe(10);
    expect(m.sharpe!).toBeCloseTo(0.05028894382907267, 14);
    expect(m.skewness!).toBeCloseTo(-0.7377718962654116, 13);
    expect(m.kurtosis!).toBeCloseTo(2.546485994722783, 13);
    expect(probabilisticSharpe(m.sharpe!, 0, 10, m.skewness!, m.kurtosis!)).toBeCloseTo(0.5588577685431273, 13);
    expect(probabilisticSharpe(m.sharpe!, 0.05, 10, m.skewness!, m.kurtosis!)).toBeCloseTo(0.500339413708517, 13);
  });

  it('is one half at its own benchmark', () => {
    expect(probabilisticSharpe(0.1, 0.1, 100, -1, 6)).toBe(0.5);
  });

  it('refuses fewer than two returns and moments that give no variance', () => {
    expect(() => probabilisticSharpe(0.1, 0, 1, 0, 3)).toThrow(/observations/);
    expect(() => probabilisticSharpe(1, 0, 100, 5, 1)).toThrow(/no positive variance/);
  });
});

describe('expectedMaxSharpe and trialVariance', () => {
  it('needs at least two trials', () => {
    expect(() => expectedMaxSharpe(1, 0.01)).toThrow(/trials/);
    expect(() => trialVariance([1])).toThrow(/at least 2/);
  });

  it('grows with the number of trials and with their spread', () => {
    expect(expectedMaxSharpe(1000, 0.01)).toBeGreaterThan(expectedMaxSharpe(100, 0.01));
    expect(expectedMaxSharpe(100, 0.04)).toBeCloseTo(2 * expectedMaxSharpe(100, 0.01), 14);
  });

  it('is the sample variance with ddof = 1', () => {
    expect(trialVariance([1, 2, 3, 4])).toBeCloseTo(5 / 3, 15);
  });
});

describe('deflatedSharpe', () => {
  it('puts the returns’ own moments into PSR(0) and PSR(SR0)', () => {
    const rng = createRng(11);
    const returns = Float64Array.from({ length: 1000 }, () => 0.0005 + 0.01 * rng.normal());
    const d = deflatedSharpe(returns, 131, 0.04 / 252)!;
    const m = returnMoments(returns);
    expect(d).toMatchObject({ observations: 1000, sharpe: m.sharpe, skewness: m.skewness, kurtosis: m.kurtosis, trials: 131, trial_variance: 0.04 / 252 });
    expect(d.expected_max_sharpe).toBe(expectedMaxSharpe(131, 0.04 / 252));
    expect(d.psr).toBe(probabilisticSharpe(m.sharpe!, 0, 1000, m.skewness!, m.kurtosis!));
    expect(d.dsr).toBe(probabilisticSharpe(m.sharpe!, d.expected_max_sharpe, 1000, m.skewness!, m.kurtosis!));
    expect(d.dsr).toBeLessThan(d.psr);
  });

  it('is null without a Sharpe ratio (fewer than two returns, or no variance), and refuses NaN', () => {
    expect(deflatedSharpe(Float64Array.from([0.01]), 10, 0.01)).toBeNull();
    expect(deflatedSharpe(new Float64Array(50), 10, 0.01)).toBeNull();
    expect(() => deflatedSharpe(Float64Array.from([0.01, Number.NaN, 0.02]), 10, 0.01)).toThrow(/NaN/);
  });
});
