/**
 * The stationary bootstrap's automatic mean block length (pipeline/performance/block-length.ts): the value the
 * `arch` package's own test publishes for its AR(1) series (fixtures/arch-block-length-ar1.json, 13.635665),
 * Politis and White's theoretical optimum for an AR(1) approached on a long series, and the edges.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stationaryBlockLength } from '../../../pipeline/performance/block-length.js';
import { createRng } from '../../../pipeline/random.js';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/arch-block-length-ar1.json', import.meta.url), 'utf8')) as {
  expected_stationary: number;
  series: number[];
};

/** An AR(1) series x_t = φ·x_{t−1} + e_t, e standard normal, after a burn-in of 100. */
function ar1(phi: number, n: number, seed: number): Float64Array {
  const rng = createRng(seed);
  const out = new Float64Array(n);
  let x = 0;
  for (let t = -100; t < n; t++) {
    x = phi * x + rng.normal();
    if (t >= 0) out[t] = x;
  }
  return out;
}

describe('stationaryBlockLength', () => {
  it('gives arch’s published 13.635665 on arch’s AR(1) test series', () => {
    const b = stationaryBlockLength(Float64Array.from(fixture.series));
    expect(fixture.series).toHaveLength(10_000);
    expect(Math.abs(b / fixture.expected_stationary - 1)).toBeLessThan(1e-6);
  });

  it('approaches the theoretical optimum of an AR(1), (2φ / (1 − φ²))^(2/3)·n^(1/3), on a long series', () => {
    // For x_t = φ·x_{t−1} + e_t: G = Σ|k|γ(k) = 2φ / ((1 − φ²)(1 − φ)²), g(0) = Σγ(k) = 1 / (1 − φ)², so
    // b = (2G² / (2g(0)²))^(1/3)·n^(1/3) = (G / g(0))^(2/3)·n^(1/3).
    const n = 100_000;
    for (const phi of [0.3, 0.6]) {
      const theory = ((2 * phi) / (1 - phi * phi)) ** (2 / 3) * n ** (1 / 3);
      const b = stationaryBlockLength(ar1(phi, n, 7));
      expect(Math.abs(b / theory - 1), `φ = ${phi}: ${b} against ${theory}`).toBeLessThan(0.15);
    }
  });

  it('is longer for stronger dependence', () => {
    expect(stationaryBlockLength(ar1(0.8, 5000, 3))).toBeGreaterThan(stationaryBlockLength(ar1(0.2, 5000, 3)));
  });

  it('is capped at ⌈min(3√n, n/3)⌉', () => {
    const n = 400;
    const trend = Float64Array.from({ length: n }, (_, t) => t);
    expect(stationaryBlockLength(trend)).toBeLessThanOrEqual(Math.ceil(Math.min(3 * Math.sqrt(n), n / 3)));
  });

  it('is 1 for a constant series, and refuses fewer than 3 values or NaN', () => {
    expect(stationaryBlockLength(new Float64Array(50).fill(0.25))).toBe(1);
    expect(() => stationaryBlockLength(Float64Array.from([1, 2]))).toThrow(/at least 3/);
    expect(() => stationaryBlockLength(Float64Array.from([1, Number.NaN, 2]))).toThrow(/NaN/);
  });
});
