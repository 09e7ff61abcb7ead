/**
 * The stationary bootstrap (pipeline/performance/bootstrap.ts): geometric block lengths with the stated mean
 * (Politis and Romano 1994), resamples made of wrapped runs of consecutive days, the same resamples for the
 * same seed, the series resampled on the same days, and, on iid normal returns where the true Sharpe difference
 * is known, 90 % and 95 % intervals that cover it about as often as they say.
 */
import { describe, expect, it } from 'vitest';
import {
  differenceInterval,
  differences,
  drawBlockLength,
  jointBootstrap,
  quantileSorted,
  stationaryResample,
} from '../../../pipeline/performance/bootstrap.js';
import { createRng } from '../../../pipeline/random.js';
import { jointBlockLength, resampleSharpe } from '../../../pipeline/reports/evaluation-uncertainty.js';

describe('drawBlockLength', () => {
  it('is geometric on {1, 2, …} with the stated mean: P(L = k) = (1 − p)^(k − 1)·p, p = 1/b', () => {
    const rng = createRng(42);
    for (const b of [1.5, 5, 40]) {
      const draws = 200_000;
      const p = 1 / b;
      const counts = new Map<number, number>();
      let sum = 0;
      let lengths = true;
      for (let i = 0; i < draws; i++) {
        const l = drawBlockLength(rng, b);
        lengths &&= Number.isInteger(l) && l >= 1;
        sum += l;
        counts.set(l, (counts.get(l) ?? 0) + 1);
      }
      expect(lengths, 'every length a positive integer').toBe(true);
      // The mean within 4 standard errors (a geometric length has variance (1 − p)/p²).
      const se = Math.sqrt((1 - p) / (p * p) / draws);
      expect(Math.abs(sum / draws - b), `b = ${b}`).toBeLessThan(4 * se);
      // Each of the first probabilities within 4 standard errors of its binomial count.
      for (let k = 1; k <= 6; k++) {
        const pk = (1 - p) ** (k - 1) * p;
        const seK = Math.sqrt((pk * (1 - pk)) / draws);
        expect(Math.abs((counts.get(k) ?? 0) / draws - pk), `b = ${b}, k = ${k}`).toBeLessThan(4 * seK);
      }
    }
  });

  it('is always 1 for a mean of 1, and refuses a mean below 1', () => {
    const rng = createRng(1);
    for (let i = 0; i < 100; i++) expect(drawBlockLength(rng, 1)).toBe(1);
    expect(() => drawBlockLength(rng, 0.5)).toThrow(/meanBlock/);
  });
});

describe('stationaryResample', () => {
  it('is made of runs of consecutive days that wrap from the last day to the first', () => {
    const n = 97;
    const idx = stationaryResample(createRng(3), n, 8);
    let runs = 1;
    for (let t = 1; t < n; t++) {
      expect(idx[t]! >= 0 && idx[t]! < n).toBe(true);
      if (idx[t] !== (idx[t - 1]! + 1) % n) runs++;
    }
    // About n / 8 blocks (a block that starts where the last one ended is not counted as a new run).
    expect(runs).toBeGreaterThan(3);
    expect(runs).toBeLessThan(40);
  });

  it('is one rotation of the days when the blocks are far longer than the series', () => {
    const idx = stationaryResample(createRng(5), 50, 1e9);
    for (let t = 1; t < 50; t++) expect(idx[t]).toBe((idx[0]! + t) % 50);
  });

  it('gives the same resamples for the same seed, other resamples for another', () => {
    const a = stationaryResample(createRng(9), 500, 4);
    expect(stationaryResample(createRng(9), 500, 4)).toEqual(a);
    expect(stationaryResample(createRng(10), 500, 4)).not.toEqual(a);
  });
});

describe('jointBootstrap', () => {
  const rng = createRng(8);
  const a = Float64Array.from({ length: 300 }, () => 0.0005 + 0.01 * rng.normal());

  it('resamples every series on the same days: a series against itself differs by exactly 0 in every resample', () => {
    const v = jointBootstrap({ x: a, y: Float64Array.from(a) }, { sharpe: resampleSharpe }, { resamples: 200, meanBlock: 5, seed: 1 });
    const d = differences(v.x.sharpe, v.y.sharpe);
    expect(d.every((x) => x === 0)).toBe(true);
    expect(differenceInterval(0, d)).toMatchObject({ ci90: [0, 0], ci95: [0, 0], p_lead_le_0: 1, resamples: 200, undefined_resamples: 0 });
  });

  it('is deterministic for a seed', () => {
    const b = Float64Array.from(a, (x) => x * 0.5 + 0.0001);
    const run = (seed: number) => jointBootstrap({ a, b }, { sharpe: resampleSharpe }, { resamples: 100, meanBlock: 3, seed });
    expect(run(4)).toEqual(run(4));
    expect(run(4).a.sharpe).not.toEqual(run(5).a.sharpe);
  });

  it('marks a statistic undefined on a resample as NaN, and the interval counts those apart', () => {
    const flat = new Float64Array(300);
    const v = jointBootstrap({ a, flat }, { sharpe: resampleSharpe }, { resamples: 50, meanBlock: 5, seed: 2 });
    expect(v.flat.sharpe.every(Number.isNaN)).toBe(true);
    expect(differenceInterval(null, differences(v.a.sharpe, v.flat.sharpe))).toEqual({
      observed: null,
      ci90: null,
      ci95: null,
      p_lead_le_0: null,
      resamples: 0,
      undefined_resamples: 50,
    });
  });

  it('refuses series of different lengths', () => {
    expect(() => jointBootstrap({ a, b: a.subarray(1) }, { sharpe: resampleSharpe }, { resamples: 10, meanBlock: 2, seed: 1 })).toThrow(/series b/);
  });
});

describe('differenceInterval', () => {
  it('takes numpy’s linear quantiles and counts a difference of exactly 0 as no lead', () => {
    const d = Float64Array.from([0.3, -0.1, 0, 0.5, 0.2, 0.1, 0.4, -0.2, 0.6, 0.7]);
    const iv = differenceInterval(0.25, d);
    // numpy.quantile(d, [0.05, 0.95, 0.025, 0.975]) = [-0.155, 0.655, -0.1775, 0.6775].
    expect(iv.ci90![0]).toBeCloseTo(-0.155, 12);
    expect(iv.ci90![1]).toBeCloseTo(0.655, 12);
    expect(iv.ci95![0]).toBeCloseTo(-0.1775, 12);
    expect(iv.ci95![1]).toBeCloseTo(0.6775, 12);
    expect(iv.p_lead_le_0).toBe(0.3);
    expect(quantileSorted(Float64Array.from([1, 2]), 0.5)).toBe(1.5);
  });
});

describe('the interval of a Sharpe difference on iid normal returns', () => {
  it('covers the true difference in about 90 % (95 %) of 200 samples of 200 days', () => {
    // Two strategies' daily returns, jointly normal with correlation 0.7: true Sharpe ratios 0.08 and 0.025 a day.
    const [ma, sa, mb, sb, rho] = [0.0008, 0.01, 0.0003, 0.012, 0.7];
    const truth = Math.sqrt(252) * (ma / sa - mb / sb);
    const rng = createRng(2024);
    const samples = 200;
    const n = 200;
    let in90 = 0;
    let in95 = 0;
    for (let k = 0; k < samples; k++) {
      const a = new Float64Array(n);
      const b = new Float64Array(n);
      for (let t = 0; t < n; t++) {
        const z1 = rng.normal();
        const z2 = rng.normal();
        a[t] = ma + sa * z1;
        b[t] = mb + sb * (rho * z1 + Math.sqrt(1 - rho * rho) * z2);
      }
      const v = jointBootstrap({ a, b }, { sharpe: resampleSharpe }, { resamples: 400, meanBlock: jointBlockLength([a, b]), seed: k });
      const iv = differenceInterval(null, differences(v.a.sharpe, v.b.sharpe));
      if (iv.ci90![0] <= truth && truth <= iv.ci90![1]) in90++;
      if (iv.ci95![0] <= truth && truth <= iv.ci95![1]) in95++;
    }
    // Within 3 binomial standard errors of the nominal level (√(0.9·0.1/200) = 0.021, √(0.95·0.05/200) = 0.015).
    expect(Math.abs(in90 / samples - 0.9)).toBeLessThan(3 * 0.0212);
    expect(Math.abs(in95 / samples - 0.95)).toBeLessThan(3 * 0.0154);
  }, 120_000);
});
