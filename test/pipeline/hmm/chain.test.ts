/**
 * pipeline/hmm/chain.ts: stationary distributions worked by hand, π A = π for random chains, the failure on a
 * chain without a unique one, and the geometric expected stay of docs/decisions/0033-signal-fields.md.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../../pipeline/random.js';
import { dimensionOf, expectedDuration, stationaryDistribution } from '../../../pipeline/hmm/chain.js';

describe('stationaryDistribution', () => {
  it.each([
    { name: 'one state', a: [1], pi: [1] },
    // Two states: π_0 = a_10 / (a_01 + a_10).
    { name: 'two states', a: [0.9, 0.1, 0.3, 0.7], pi: [0.75, 0.25] },
    {
      name: 'statsmodels fedfunds (p00 .9820939, p10 .0503587)',
      a: [0.9820939, 0.0179061, 0.0503587, 0.9496413],
      pi: [0.0503587 / (0.0179061 + 0.0503587), 0.0179061 / (0.0179061 + 0.0503587)],
    },
    { name: 'birth–death chain', a: [0.5, 0.5, 0, 0.25, 0.5, 0.25, 0, 0.5, 0.5], pi: [0.25, 0.5, 0.25] },
    { name: 'periodic (still unique)', a: [0, 1, 1, 0], pi: [0.5, 0.5] },
    { name: 'one transient state', a: [0.5, 0.5, 0, 1], pi: [0, 1] },
  ])('$name', ({ a, pi }) => {
    const result = stationaryDistribution(Float64Array.from(a));
    pi.forEach((p, k) => expect(result[k]).toBeCloseTo(p, 14));
  });

  it.each([2, 4, 8])('satisfies π A = π and Σ π = 1 for a random %i-state chain', (K) => {
    const rng = createRng(K);
    const a = new Float64Array(K * K);
    for (let i = 0; i < K; i++) {
      const row = Array.from({ length: K }, () => rng.uniform());
      const s = row.reduce((x, y) => x + y, 0);
      row.forEach((v, j) => (a[i * K + j] = v / s));
    }
    const pi = stationaryDistribution(a);
    expect(pi.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 14);
    for (let j = 0; j < K; j++) {
      let s = 0;
      for (let i = 0; i < K; i++) s += pi[i]! * a[i * K + j]!;
      expect(s).toBeCloseTo(pi[j]!, 14);
    }
  });

  it('fails with hmm_singular_matrix when there is no unique stationary distribution (two absorbing states)', () => {
    expect(() => stationaryDistribution(Float64Array.of(1, 0, 0, 1))).toThrow(expect.objectContaining({ code: 'hmm_singular_matrix' }));
  });

  it('rejects a matrix that is not square', () => {
    expect(() => dimensionOf(new Float64Array(3))).toThrow(/transmat: expected K × K entries, got 3/);
  });
});

describe('expectedDuration', () => {
  it.each([
    { aii: 0, days: 0 },
    { aii: 0.5, days: 1 },
    { aii: 0.9, days: 9 },
    { aii: 0.99, days: 99 },
    { aii: 1, days: Infinity },
  ])('a_ii = $aii → $days further days', ({ aii, days }) => {
    if (Number.isFinite(days)) expect(expectedDuration(aii)).toBeCloseTo(days, 10);
    else expect(expectedDuration(aii)).toBe(Infinity);
  });

  it('is the mean of the geometric number of further days, Σ_n n · a^n (1 − a)', () => {
    const a = 0.97;
    let mean = 0;
    for (let n = 1; n < 5000; n++) mean += n * a ** n * (1 - a);
    expect(expectedDuration(a)).toBeCloseTo(mean, 8);
  });

  it.each([-0.1, 1.1, Number.NaN])('rejects a_ii = %s', (aii) => {
    expect(() => expectedDuration(aii)).toThrow(/aii: expected a probability/);
  });
});
