/**
 * pipeline/hmm/transition-update.ts: the closed-form Baum-Welch update, and for a start distribution tied to
 * stationarity, that the ascent reaches a maximiser of Q(A) = Σ N log a + Σ g log π(A): no lower than the
 * starting points, and stationary on the simplex (every feasible directional derivative, by finite differences
 * of an independent Q, is zero).
 */
import { describe, expect, it } from 'vitest';
import { stationaryDistribution } from '../../../pipeline/hmm/chain.js';
import { updateChain } from '../../../pipeline/hmm/transition-update.js';

function q(counts: ArrayLike<number>, gamma0: ArrayLike<number>, a: ArrayLike<number>): number {
  const K = gamma0.length;
  const pi = stationaryDistribution(a);
  let total = 0;
  for (let i = 0; i < K * K; i++) if (counts[i]! > 0) total += counts[i]! * Math.log(a[i]!);
  for (let k = 0; k < K; k++) if (gamma0[k]! > 0) total += gamma0[k]! * Math.log(pi[k]!);
  return total;
}

describe("mode 'estimate' (Rabiner eqs. 40a–40b)", () => {
  it('normalises the expected counts by row and takes π = γ_1', () => {
    const update = updateChain(Float64Array.of(8, 2, 1, 3), Float64Array.of(0.2, 0.8), Float64Array.of(0.5, 0.5, 0.5, 0.5), 'estimate');
    expect(Array.from(update.transmat)).toEqual([0.8, 0.2, 0.25, 0.75]);
    expect(Array.from(update.startProb)).toEqual([0.2, 0.8]);
  });

  it('keeps the previous row of a state that is never visited', () => {
    const update = updateChain(Float64Array.of(5, 5, 0, 0), Float64Array.of(1, 0), Float64Array.of(0.9, 0.1, 0.3, 0.7), 'estimate');
    expect(Array.from(update.transmat)).toEqual([0.5, 0.5, 0.3, 0.7]);
  });
});

describe("mode 'stationary' (π = π(A), as statsmodels and Stata)", () => {
  it.each([
    // The federal funds counts are of the order of the E-step's on that series.
    { name: 'two states, fedfunds-like', counts: [160.3, 2.9, 3.1, 58.7], gamma0: [0.99999, 0.00001], previous: [0.9, 0.1, 0.1, 0.9] },
    { name: 'two states, start in the rare state', counts: [50, 5, 5, 10], gamma0: [0, 1], previous: [0.5, 0.5, 0.5, 0.5] },
    {
      name: 'three states',
      counts: [40, 3, 1, 2, 30, 4, 1, 2, 20],
      gamma0: [0.1, 0.2, 0.7],
      previous: [0.8, 0.1, 0.1, 0.1, 0.8, 0.1, 0.1, 0.1, 0.8],
    },
  ])('$name: a stationary point of Q, no worse than the closed form or the previous A', ({ counts, gamma0, previous }) => {
    const K = gamma0.length;
    const update = updateChain(Float64Array.from(counts), Float64Array.from(gamma0), Float64Array.from(previous), 'stationary');
    const a = update.transmat;
    for (let i = 0; i < K; i++) expect(a.subarray(i * K, (i + 1) * K).reduce((s, v) => s + v, 0)).toBeCloseTo(1, 14);
    const pi = stationaryDistribution(a);
    pi.forEach((p, k) => expect(update.startProb[k]).toBeCloseTo(p, 14));

    const qa = q(counts, gamma0, a);
    const closed = Float64Array.from(counts, (c, n) => c / counts.slice(Math.floor(n / K) * K, Math.floor(n / K) * K + K).reduce((s, v) => s + v, 0));
    expect(qa).toBeGreaterThanOrEqual(q(counts, gamma0, closed) - 1e-12);
    expect(qa).toBeGreaterThanOrEqual(q(counts, gamma0, previous) - 1e-12);

    // Moving mass h from a_il to a_ij within a row: the central difference must vanish at a maximiser.
    const h = 1e-6;
    for (let i = 0; i < K; i++) {
      for (let j = 0; j < K; j++) {
        for (let l = j + 1; l < K; l++) {
          const plus = Float64Array.from(a);
          const minus = Float64Array.from(a);
          plus[i * K + j] = plus[i * K + j]! + h;
          plus[i * K + l] = plus[i * K + l]! - h;
          minus[i * K + j] = minus[i * K + j]! - h;
          minus[i * K + l] = minus[i * K + l]! + h;
          const derivative = (q(counts, gamma0, plus) - q(counts, gamma0, minus)) / (2 * h);
          expect(Math.abs(derivative)).toBeLessThan(1e-4);
        }
      }
    }
  });

  it('differs from the closed form when the start distribution pulls: the π term is taken into account', () => {
    const counts = Float64Array.of(50, 5, 5, 10);
    const update = updateChain(counts, Float64Array.of(0, 1), Float64Array.of(0.5, 0.5, 0.5, 0.5), 'stationary');
    // Starting in the rare state 1 favours a larger π_1 = a_01 / (a_01 + a_10): a higher a_01 and a higher a_11.
    expect(update.transmat[1]!).toBeGreaterThan(5 / 55);
    expect(update.transmat[3]!).toBeGreaterThan(10 / 15);
  });
});
