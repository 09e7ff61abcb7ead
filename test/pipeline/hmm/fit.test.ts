/**
 * pipeline/hmm/fit.ts and baum-welch.ts on synthetic data drawn (seeded) from a known 4-state, 3-dimensional
 * Gaussian HMM shaped like the regime model's: EM never decreases the likelihood, the fit recovers the
 * generating means and the Viterbi path recovers the states, labels do not depend on the order of the
 * initial states, a fit is reproducible bit for bit, and warm starts refit cheaply without switching labels.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../../pipeline/random.js';
import { baumWelch, type EmSettings } from '../../../pipeline/hmm/baum-welch.js';
import { expectedDuration, fit, stationaryDistribution, type FitResult } from '../../../pipeline/hmm/fit.js';
import { viterbi } from '../../../pipeline/hmm/inference.js';
import { kmeansModel } from '../../../pipeline/hmm/init.js';
import { symmetricEigen } from '../../../pipeline/hmm/linalg.js';
import { matchStates, permuteModel } from '../../../pipeline/hmm/matching.js';
import { logEmissions, type GaussianHmm } from '../../../pipeline/hmm/model.js';
import { regimeLikeModel, sampleHmm } from './synthetic.js';

const truth = regimeLikeModel(3);
const { X, states } = sampleHmm(truth, 2000, 2024);

function expectMonotone(history: readonly number[]): void {
  for (let i = 1; i < history.length; i++) {
    expect(history[i]!).toBeGreaterThanOrEqual(history[i - 1]! - 1e-8 * Math.abs(history[i - 1]!));
  }
}

/** The fitted model relabelled to the generating model's states. */
const aligned = (model: GaussianHmm): GaussianHmm => permuteModel(model, matchStates(truth.means, model.means));

function accuracy(model: GaussianHmm): number {
  const path = viterbi(model, logEmissions(model, X)).path;
  let hits = 0;
  for (let t = 0; t < X.length; t++) if (path[t] === states[t]) hits++;
  return hits / X.length;
}

function bytes(model: GaussianHmm): string {
  const parts = [model.startProb, model.transmat, ...model.means, ...model.covars];
  return parts.map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('hex')).join('|');
}

describe('fit on synthetic 4-state 3-D data', () => {
  const result = fit(X, { seed: 7 });
  const model = aligned(result.model);

  it('converges, with the defaults of the brief', () => {
    expect(result.converged).toBe(true);
    expect(result.restarts).toHaveLength(8);
    expect(result.model.K).toBe(4);
    expect(result.logLikelihood).toBe(result.history[result.history.length - 1]);
    expect(result.logLikelihood).toBe(Math.max(...result.restarts.map((r) => r.logLikelihood)));
  });

  it('never decreases the log-likelihood across iterations (1e−8 relative)', () => {
    expectMonotone(result.history);
  });

  it('recovers the generating means (after matching) and the persistence of each state', () => {
    for (let k = 0; k < 4; k++) {
      for (let j = 0; j < 3; j++) expect(Math.abs(model.means[k]![j]! - truth.means[k]![j]!)).toBeLessThan(0.1);
      expect(Math.abs(model.transmat[k * 4 + k]! - truth.transmat[k * 4 + k]!)).toBeLessThan(0.02);
    }
  });

  it('fits at least as well as the generating model (it is the maximum-likelihood point)', () => {
    const atTruth = baumWelch(X, truth, { maxIter: 0, tol: 0, covFloor: 1e-4, tiedCovariance: false, startProb: 'estimate' });
    expect(result.logLikelihood).toBeGreaterThan(atTruth.logLikelihood);
  });

  it('decodes most states with Viterbi', () => {
    expect(accuracy(model)).toBeGreaterThan(0.97);
  });
});

describe('EM monotonicity in every mode', () => {
  it.each([
    { name: 'full covariances', settings: {} },
    // A floor above the smallest generating eigenvalue (0.6² · 0.7 ≈ 0.25), so the floor binds.
    { name: 'an active covariance floor', settings: { covFloor: 0.4 } },
    { name: 'tied covariance', settings: { tiedCovariance: true } },
    { name: 'stationary start distribution (generalised EM)', settings: { startProb: 'stationary' as const } },
  ])('$name', ({ settings }) => {
    const all: EmSettings = { maxIter: 60, tol: 0, covFloor: 1e-4, tiedCovariance: false, startProb: 'estimate', ...settings };
    // The start must be in the model family (tied, stationary, floored) for EM's guarantee to apply from step one.
    const run = baumWelch(X, kmeansModel(X, 4, createRng(3), all), all);
    expect(run.history.length).toBeGreaterThan(5);
    expectMonotone(run.history);
    if (all.covFloor > 1e-4) for (const c of run.model.covars) expect(symmetricEigen(c, 3).values[0]!).toBeGreaterThanOrEqual(all.covFloor - 1e-12);
  });
});

describe('labels do not depend on the order of the initial states', () => {
  it('two fits from permuted initialisations, matched to the same reference means, decode the same state sequence', () => {
    const settings: EmSettings = { maxIter: 200, tol: 1e-8, covFloor: 1e-4, tiedCovariance: false, startProb: 'estimate' };
    const start = kmeansModel(X, 4, createRng(5), settings);
    const a = aligned(baumWelch(X, start, settings).model);
    const b = aligned(baumWelch(X, permuteModel(start, [2, 0, 3, 1]), settings).model);
    expect(Array.from(viterbi(b, logEmissions(b, X)).path)).toEqual(Array.from(viterbi(a, logEmissions(a, X)).path));
    for (let k = 0; k < 4; k++) for (let j = 0; j < 3; j++) expect(b.means[k]![j]).toBeCloseTo(a.means[k]![j]!, 9);
  });
});

describe('screening restarts (em-EM)', () => {
  it('runs every restart for screenIter iterations and only the best on', () => {
    const result = fit(X, { seed: 3, restarts: 5, screenIter: 2, tol: 1e-9 });
    const others = result.restarts.filter((_, r) => r !== result.bestRestart);
    for (const r of others) expect(r.iterations).toBeLessThanOrEqual(2);
    expect(result.iterations).toBeGreaterThan(2);
    expect(result.restarts[result.bestRestart]!.iterations).toBe(result.iterations);
    expectMonotone(result.history);
  });

  it('continuing the screened winner is exactly one uninterrupted run', () => {
    const screened = fit(X, { seed: 4, restarts: 1, screenIter: 3 });
    const straight = fit(X, { seed: 4, restarts: 1, screenIter: 200 });
    expect(bytes(screened.model)).toBe(bytes(straight.model));
    expect(screened.history).toEqual(straight.history);
    expect(screened.iterations).toBe(straight.iterations);
  });

  it('rejects a negative screenIter', () => {
    expect(() => fit(X, { screenIter: -1 })).toThrow(/options\.screenIter: expected an integer ≥ 0/);
  });
});

describe('determinism', () => {
  it('the same seed gives the same fit, bit for bit', () => {
    const a = fit(X, { seed: 11, restarts: 3 });
    const b = fit(X, { seed: 11, restarts: 3 });
    expect(bytes(b.model)).toBe(bytes(a.model));
    expect(b.history).toEqual(a.history);
    expect(b.restarts).toEqual(a.restarts);
  });

  it('another seed starts elsewhere', () => {
    const a = fit(X, { seed: 11, restarts: 2, maxIter: 0 });
    const b = fit(X, { seed: 12, restarts: 2, maxIter: 0 });
    expect(b.history[0]).not.toBe(a.history[0]);
  });
});

describe('warm start (walk-forward refits)', () => {
  const previous = fit(X, { seed: 1, restarts: 2 });
  const more = X.concat(sampleHmm(truth, 100, 99).X);

  it('converges in a few iterations from the previous model, keeping its labels', () => {
    const refit = fit(more, { seed: 2, restarts: 1, warmStart: previous.model });
    expect(refit.restarts[0]!.start).toBe('warm');
    expect(refit.converged).toBe(true);
    expect(refit.iterations).toBeLessThan(20);
    expect(Array.from(matchStates(previous.model.means, refit.model.means))).toEqual([0, 1, 2, 3]);
    for (let k = 0; k < 4; k++) for (let j = 0; j < 3; j++) expect(Math.abs(refit.model.means[k]![j]! - previous.model.means[k]![j]!)).toBeLessThan(0.1);
  });

  it('adds seeded perturbations as further restarts and still returns the previous labels', () => {
    const refit = fit(more, { seed: 2, restarts: 4, warmStart: previous.model });
    expect(refit.restarts.map((r) => r.start)).toEqual(['warm', 'perturbed', 'perturbed', 'perturbed']);
    expect(Array.from(matchStates(previous.model.means, refit.model.means))).toEqual([0, 1, 2, 3]);
    expect(bytes(fit(more, { seed: 2, restarts: 4, warmStart: previous.model }).model)).toBe(bytes(refit.model));
  });

  it("returns the states in the warm start's order, whatever order that is", () => {
    // The same previous model listed in another order: the refit follows that order, not a canonical one.
    const shuffled = permuteModel(previous.model, [1, 3, 0, 2]);
    const refit: FitResult = fit(more, { seed: 2, restarts: 1, warmStart: shuffled });
    expect(Array.from(matchStates(shuffled.means, refit.model.means))).toEqual([0, 1, 2, 3]);
  });
});

describe('explicit starts (options.starts)', () => {
  const previous = fit(X, { seed: 1, restarts: 2 });
  const more = X.concat(sampleHmm(truth, 100, 99).X);

  it('runs one restart per listed start, in order, and keeps the best', () => {
    const result = fit(more, { seed: 5, starts: ['warm', 'farthest', 'quantile', 'cold', 'perturbed'], warmStart: previous.model });
    expect(result.restarts.map((r) => r.start)).toEqual(['warm', 'farthest', 'quantile', 'cold', 'perturbed']);
    expect(result.logLikelihood).toBe(Math.max(...result.restarts.map((r) => r.logLikelihood)));
    expect(Array.from(matchStates(previous.model.means, result.model.means))).toEqual([0, 1, 2, 3]);
  });

  it('with only the warm start and deterministic k-means starts, the seed changes nothing, bit for bit', () => {
    const starts = ['warm', 'farthest', 'quantile'] as const;
    const a = fit(more, { seed: 1, starts, warmStart: previous.model });
    const b = fit(more, { seed: 0xdeadbeef, starts, warmStart: previous.model });
    expect(bytes(b.model)).toBe(bytes(a.model));
    expect(b.history).toEqual(a.history);
    const cold = fit(X, { seed: 1, starts: ['farthest', 'quantile'] });
    expect(bytes(fit(X, { seed: 2, starts: ['farthest', 'quantile'] }).model)).toBe(bytes(cold.model));
    expect(accuracy(aligned(cold.model))).toBeGreaterThan(0.9);
  });

  it('rejects an empty list, an unknown start, and warm starts without a model', () => {
    expect(() => fit(X, { starts: [] })).toThrow(/options\.starts: expected a non-empty list/);
    expect(() => fit(X, { starts: ['random' as never] })).toThrow(/options\.starts: expected a non-empty list/);
    expect(() => fit(X, { starts: ['warm'] })).toThrow(/options\.starts: warm and perturbed starts need options\.warmStart/);
  });
});

describe('options and failures', () => {
  it.each([
    { options: { K: 0 }, problem: /options\.K: expected a positive integer/ },
    { options: { restarts: 0 }, problem: /options\.restarts: expected a positive integer/ },
    { options: { maxIter: -1 }, problem: /options\.maxIter: expected an integer ≥ 0/ },
    { options: { tol: -1 }, problem: /options\.tol: expected a number ≥ 0/ },
    { options: { covFloor: Number.NaN }, problem: /options\.covFloor: expected a finite number ≥ 0/ },
    { options: { seed: -1 }, problem: /options\.seed: expected an unsigned 32-bit integer/ },
    { options: { startProb: 'uniform' as never }, problem: /options\.startProb: expected 'estimate' or 'stationary'/ },
    { options: { K: 3, warmStart: truth }, problem: /options\.warmStart: has K = 4, options\.K is 3/ },
  ])('rejects $options', ({ options, problem }) => {
    expect(() => fit(X, options)).toThrow(problem);
  });

  it('rejects data it cannot fit, naming the problem', () => {
    expect(() => fit([])).toThrow(/X: expected at least one observation/);
    expect(() => fit(X.slice(0, 3))).toThrow(/X: has 3 rows, fewer than K = 4 states/);
    expect(() => fit([Float64Array.of(1, 2), Float64Array.of(1)], { K: 1 })).toThrow(/X: row 1 has 1 entries, expected 2/);
    expect(() => fit(X, { warmStart: regimeLikeModel(2) })).toThrow(/options\.warmStart: has d = 2, X has 3 columns/);
  });

  it('without a covariance floor, a degenerate series fails every restart with hmm_not_positive_definite', () => {
    const constant = Array.from({ length: 50 }, () => Float64Array.of(1));
    expect(() => fit(constant, { K: 2, restarts: 2, covFloor: 0 })).toThrow(expect.objectContaining({ code: 'hmm_not_positive_definite' }));
    // The floor is what makes it fittable.
    expect(fit(constant, { K: 2, restarts: 2 }).model.covars[0]![0]).toBeCloseTo(1e-4, 12);
  });

  it('re-exports the chain helpers beside the fit', () => {
    expect(expectedDuration(0.95)).toBeCloseTo(19, 12);
    expect(stationaryDistribution(Float64Array.of(0.9, 0.1, 0.3, 0.7))[0]).toBeCloseTo(0.75, 14);
  });
});
