/**
 * pipeline/hmm/model.ts: log emission densities against the normal density written out by hand (1-D, diagonal,
 * correlated 2-D with the explicit 2×2 inverse), and the edge checks of a model and of observations.
 */
import { describe, expect, it } from 'vitest';
import { cholesky, logDetFromCholesky, mahalanobisSquared } from '../../../pipeline/hmm/linalg.js';
import { cloneModel, logEmissions, validateModel, validateObservations, type GaussianHmm } from '../../../pipeline/hmm/model.js';
import { regimeLikeModel, sampleHmm } from './synthetic.js';

const f64 = (...v: number[]): Float64Array => Float64Array.from(v);
const normalLogPdf = (x: number, mean: number, variance: number): number => -0.5 * (Math.log(2 * Math.PI * variance) + (x - mean) ** 2 / variance);

function model2d(): GaussianHmm {
  return {
    K: 2,
    d: 2,
    startProb: f64(0.5, 0.5),
    transmat: f64(0.9, 0.1, 0.2, 0.8),
    means: [f64(0, 0), f64(1, -1)],
    covars: [f64(1, 0, 0, 4), f64(4, 2, 2, 5)],
  };
}

describe('logEmissions', () => {
  it.each([
    { x: 0, mean: 0, variance: 1 },
    { x: 1.5, mean: -0.5, variance: 0.25 },
    { x: 100, mean: 0, variance: 1 },
    { x: 3.70877, mean: 9.556793, variance: 2.107562 ** 2 },
  ])('1-D: log N($x; $mean, $variance)', ({ x, mean, variance }) => {
    const m: GaussianHmm = { K: 1, d: 1, startProb: f64(1), transmat: f64(1), means: [f64(mean)], covars: [f64(variance)] };
    expect(logEmissions(m, [f64(x)])[0]).toBeCloseTo(normalLogPdf(x, mean, variance), 12);
  });

  it('diagonal covariance: the sum of 1-D log densities; correlated: the explicit inverse and determinant', () => {
    const X = [f64(0.3, -1.2), f64(2, 2), f64(-1, 0.5)];
    const out = logEmissions(model2d(), X);
    expect(out).toHaveLength(X.length * 2);
    X.forEach((x, t) => {
      expect(out[t * 2]).toBeCloseTo(normalLogPdf(x[0]!, 0, 1) + normalLogPdf(x[1]!, 0, 4), 12);
      // Σ = [[4,2],[2,5]]: det 16, Σ⁻¹ = [[5,−2],[−2,4]] / 16.
      const u = x[0]! - 1;
      const v = x[1]! + 1;
      const quad = (5 * u * u - 4 * u * v + 4 * v * v) / 16;
      expect(out[t * 2 + 1]).toBeCloseTo(-0.5 * (2 * Math.log(2 * Math.PI) + Math.log(16) + quad), 12);
    });
  });

  it('accepts plain number arrays as rows', () => {
    expect(logEmissions(model2d(), [[0.3, -1.2]])).toEqual(logEmissions(model2d(), [f64(0.3, -1.2)]));
  });

  it("d = 4, written out for the regime model, gives the general triangular solve's numbers bit for bit", () => {
    const model = regimeLikeModel(4);
    const { X } = sampleHmm(model, 3000, 11);
    // Far from every state too, where the quadratic form is large.
    X.push(f64(40, -35, 1e3, -2e-8));
    const out = logEmissions(model, X);
    const scratch = new Float64Array(4);
    model.covars.forEach((cov, k) => {
      const l = cholesky(cov, 4);
      const constant = -0.5 * (4 * Math.log(2 * Math.PI) + logDetFromCholesky(l, 4));
      X.forEach((x, t) => {
        expect(Object.is(out[t * 4 + k], constant - 0.5 * mahalanobisSquared(l, 4, x, model.means[k]!, scratch)), `t ${t}, state ${k}`).toBe(true);
      });
    });
  });
});

describe('validateModel', () => {
  it('accepts a valid model', () => {
    expect(() => validateModel(model2d())).not.toThrow();
  });

  it.each([
    { name: 'K not a positive integer', change: (m: GaussianHmm) => ({ ...m, K: 0 }), problem: /model\.K: expected a positive integer/ },
    { name: 'startProb of the wrong length', change: (m: GaussianHmm) => ({ ...m, startProb: f64(1) }), problem: /model\.startProb: expected 2 entries/ },
    {
      name: 'startProb not summing to 1',
      change: (m: GaussianHmm) => ({ ...m, startProb: f64(0.5, 0.6) }),
      problem: /model\.startProb: entries 0…1 sum to 1\.1/,
    },
    { name: 'negative probability', change: (m: GaussianHmm) => ({ ...m, startProb: f64(-0.5, 1.5) }), problem: /model\.startProb: entry 0 is -0\.5/ },
    {
      name: 'transmat row not summing to 1',
      change: (m: GaussianHmm) => ({ ...m, transmat: f64(0.9, 0.1, 0.2, 0.7) }),
      problem: /model\.transmat: entries 2…3 sum to/,
    },
    { name: 'NaN in transmat', change: (m: GaussianHmm) => ({ ...m, transmat: f64(Number.NaN, 0.1, 0.2, 0.8) }), problem: /model\.transmat: entry 0 is NaN/ },
    {
      name: 'a mean of the wrong length',
      change: (m: GaussianHmm) => ({ ...m, means: [f64(0), f64(1, 1)] }),
      problem: /model\.means\[0\]: expected 2 entries/,
    },
    {
      name: 'a non-finite mean',
      change: (m: GaussianHmm) => ({ ...m, means: [f64(0, Infinity), f64(1, 1)] }),
      problem: /model\.means\[0\]: has a non-finite entry/,
    },
    {
      name: 'a covariance of the wrong length',
      change: (m: GaussianHmm) => ({ ...m, covars: [f64(1, 0, 0, 1), f64(1)] }),
      problem: /model\.covars\[1\]: expected 4 entries/,
    },
    { name: 'too few covariances', change: (m: GaussianHmm) => ({ ...m, covars: [f64(1, 0, 0, 1)] }), problem: /model\.covars: expected 2 matrices/ },
  ])('rejects $name, naming the field', ({ change, problem }) => {
    expect(() => validateModel(change(model2d()))).toThrow(problem);
  });

  it('rejects a covariance that is not positive definite with hmm_not_positive_definite, naming which', () => {
    const m = { ...model2d(), covars: [f64(1, 0, 0, 1), f64(1, 2, 2, 1)] };
    expect(() => validateModel(m)).toThrow(
      expect.objectContaining({ code: 'hmm_not_positive_definite', message: expect.stringMatching(/^model\.covars\[1\]: a: not positive definite/) }),
    );
  });
});

describe('validateObservations', () => {
  it.each([
    { X: [], problem: /X: expected at least one observation/ },
    { X: [f64(1, 2), f64(1)], problem: /X: row 1 has 1 entries, expected 2/ },
    { X: [f64(1, Number.NaN)], problem: /X: row 0 entry 1 is NaN/ },
  ])('rejects $X', ({ X, problem }) => {
    expect(() => validateObservations(X, 2)).toThrow(problem);
  });
});

describe('cloneModel', () => {
  it('copies deeply: changing the copy leaves the original alone', () => {
    const m = model2d();
    const copy = cloneModel(m);
    expect(copy).toEqual(m);
    copy.means[0]![0] = 99;
    copy.transmat[0] = 0;
    expect(m.means[0]![0]).toBe(0);
    expect(m.transmat[0]).toBe(0.9);
  });
});
