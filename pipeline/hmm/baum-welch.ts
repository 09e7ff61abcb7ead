/**
 * One run of the Baum-Welch (EM) algorithm for a Gaussian HMM from a given starting model (Rabiner 1989,
 * §III.C, re-estimation formulas eqs. 40a–40c and, for Gaussian densities, 52–54 with one component per state;
 * L. E. Baum, T. Petrie, G. Soules and N. Weiss, Ann. Math. Statist. 41, 1970, for the monotonicity).
 *
 * Each iteration evaluates the current model (E-step: forward–backward, inference.ts) and records its
 * log-likelihood, stops if the change from the previous iteration is below `tol` (absolute, in nats) or the
 * iteration cap is reached, and otherwise re-estimates (M-step). The returned model is therefore always the
 * last one evaluated, and `logLikelihood` is its exact log-likelihood, the last entry of `history`.
 *
 * M-step details:
 * - means μ_k = Σ_t γ_t(k) x_t / Σ_t γ_t(k); covariances from the new means (two-pass, which is accurate
 *   where Σ γ x xᵀ − n μ μᵀ would cancel), then the covariance floor (linalg.ts, an eigenvalue floor: the
 *   exact constrained maximiser, so the likelihood still never decreases).
 * - `tiedCovariance`: one covariance for all states, Σ = Σ_k Σ_t γ_t(k)(x_t − μ_k)(x_t − μ_k)ᵀ / T — the
 *   common-variance Markov-switching model of statsmodels' MarkovRegression (`switching_variance=False`).
 * - π and A: transition-update.ts (closed form, or tied to the stationary distribution).
 * - A state with (numerically) no expected visits keeps its previous mean and covariance: there is no data
 *   to estimate them from, and dividing by ~0 would give NaN.
 */
import { backward, expectedTransitions, forward, smoothed } from './inference.js';
import { floorCovariance } from './linalg.js';
import { logEmissions, validateModel, validateObservations, type GaussianHmm, type Observations } from './model.js';
import { scaledEStatistics } from './scaled-e-step.js';
import { updateChain, type StartProbMode } from './transition-update.js';

export interface EmSettings {
  maxIter: number;
  tol: number;
  covFloor: number;
  tiedCovariance: boolean;
  startProb: StartProbMode;
}

export interface EmRun {
  model: GaussianHmm;
  /** log p(X | model). */
  logLikelihood: number;
  /** The log-likelihood of the model at each iteration; history[0] is the starting model's. */
  history: number[];
  /** True when the last gain was below `tol`; false when the iteration cap stopped the run. */
  converged: boolean;
  /** Number of M-steps done. */
  iterations: number;
}

export interface EStep {
  logLikelihood: number;
  /** Smoothed probabilities γ, T × K. */
  gamma: Float64Array;
  /** Expected transitions Σ_t ξ_t, K × K. */
  counts: Float64Array;
}

const MIN_STATE_WEIGHT = 1e-10;

/**
 * The E-step: log-likelihood, smoothed probabilities and expected transition counts of `model` on X, by the
 * scaled recursions (scaled-e-step.ts), or in logarithms where those decline. `checked`: X is validated.
 */
export function eStep(model: GaussianHmm, X: Observations, checked = false): EStep {
  const logB = logEmissions(model, X, checked);
  return scaledEStatistics(model, logB) ?? logSpaceEStep(model, logB);
}

/** The E-step in logarithms (inference.ts): exact wherever probabilities would underflow. */
export function logSpaceEStep(model: GaussianHmm, logB: Float64Array): EStep {
  const fwd = forward(model, logB);
  const logBeta = backward(model, logB, fwd.logNormalizers);
  return { logLikelihood: fwd.logLikelihood, gamma: smoothed(fwd, logBeta), counts: expectedTransitions(model, logB, fwd, logBeta) };
}

/** The M-step: the model maximising the expected complete-data log-likelihood given the E-step's statistics. */
export function mStep(X: Observations, e: EStep, previous: GaussianHmm, settings: EmSettings): GaussianHmm {
  const { K, d } = previous;
  const T = X.length;
  const { gamma } = e;
  const weights = new Float64Array(K);
  for (let t = 0; t < T; t++) for (let k = 0; k < K; k++) weights[k] = weights[k]! + gamma[t * K + k]!;

  const sums = weightedSums(X, gamma, K, d);
  const means: Float64Array[] = [];
  for (let k = 0; k < K; k++) {
    if (weights[k]! < MIN_STATE_WEIGHT) {
      means.push(Float64Array.from(previous.means[k]!));
      continue;
    }
    const mean = sums.slice(k * d, (k + 1) * d);
    for (let j = 0; j < d; j++) mean[j] = mean[j]! / weights[k]!;
    means.push(mean);
  }

  const scatters = scatterMatrices(X, gamma, means, K, d);
  const mirrored = (s: Float64Array, divisor: number): Float64Array => {
    const c = new Float64Array(d * d);
    for (let i = 0; i < d; i++) {
      for (let j = 0; j <= i; j++) {
        c[i * d + j] = s[i * d + j]! / divisor;
        c[j * d + i] = c[i * d + j]!;
      }
    }
    return floorCovariance(c, d, settings.covFloor);
  };

  let covars: Float64Array[];
  if (settings.tiedCovariance) {
    const pooled = new Float64Array(d * d);
    for (const s of scatters) for (let i = 0; i < d * d; i++) pooled[i] = pooled[i]! + s[i]!;
    const shared = mirrored(pooled, T);
    covars = means.map(() => Float64Array.from(shared));
  } else {
    covars = scatters.map((s, k) => (weights[k]! < MIN_STATE_WEIGHT ? Float64Array.from(previous.covars[k]!) : mirrored(s, weights[k]!)));
  }

  const chain = updateChain(e.counts, gamma.subarray(0, K), previous.transmat, settings.startProb);
  return { K, d, startProb: chain.startProb, transmat: chain.transmat, means, covars };
}

/**
 * Σ_t γ_t(k) x_t for every state, K × d: one pass over the rows, each sum taken in row order (so the same
 * numbers as a pass per state), the rows of d = 4 written out.
 */
export function weightedSums(X: Observations, gamma: Float64Array, K: number, d: number, unrolled = true): Float64Array {
  const sums = new Float64Array(K * d);
  for (let t = 0; t < X.length; t++) {
    const x = X[t]!;
    if (d === 4 && unrolled) {
      const x0 = x[0]!,
        x1 = x[1]!,
        x2 = x[2]!,
        x3 = x[3]!;
      for (let k = 0; k < K; k++) {
        const g = gamma[t * K + k]!;
        const o = k * 4;
        sums[o] = sums[o]! + g * x0;
        sums[o + 1] = sums[o + 1]! + g * x1;
        sums[o + 2] = sums[o + 2]! + g * x2;
        sums[o + 3] = sums[o + 3]! + g * x3;
      }
      continue;
    }
    for (let k = 0; k < K; k++) {
      const g = gamma[t * K + k]!;
      for (let j = 0; j < d; j++) sums[k * d + j] = sums[k * d + j]! + g * x[j]!;
    }
  }
  return sums;
}

/**
 * The scatter matrices Σ_t γ_t(k)(x_t − μ_k)(x_t − μ_k)ᵀ of the M-step, lower triangle (mirrored by the
 * caller). For d = 4, the regime model's dimension, where it is most of an M-step's time, the inner loops are
 * written out: the same operations in the same order, so the same numbers bit for bit (baum-welch.test.ts
 * compares the two).
 */
export function scatterMatrices(X: Observations, gamma: Float64Array, means: readonly Float64Array[], K: number, d: number, unrolled = true): Float64Array[] {
  if (d === 4 && unrolled) return means.map((mean, k) => scatter4(X, gamma, mean, K, k));
  const scatters = means.map(() => new Float64Array(d * d));
  const centred = new Float64Array(d);
  for (let t = 0; t < X.length; t++) {
    const x = X[t]!;
    for (let k = 0; k < K; k++) {
      const g = gamma[t * K + k]!;
      if (g === 0) continue;
      const mean = means[k]!;
      const s = scatters[k]!;
      for (let j = 0; j < d; j++) centred[j] = x[j]! - mean[j]!;
      for (let i = 0; i < d; i++) {
        const gi = g * centred[i]!;
        for (let j = 0; j <= i; j++) s[i * d + j] = s[i * d + j]! + gi * centred[j]!;
      }
    }
  }
  return scatters;
}

/** One state's scatter matrix for d = 4, its ten sums in locals, each taken over the rows in order. */
function scatter4(X: Observations, gamma: Float64Array, mean: Float64Array, K: number, k: number): Float64Array {
  const m0 = mean[0]!,
    m1 = mean[1]!,
    m2 = mean[2]!,
    m3 = mean[3]!;
  let s0 = 0,
    s4 = 0,
    s5 = 0,
    s8 = 0,
    s9 = 0,
    s10 = 0,
    s12 = 0,
    s13 = 0,
    s14 = 0,
    s15 = 0;
  for (let t = 0; t < X.length; t++) {
    const g = gamma[t * K + k]!;
    if (g === 0) continue;
    const x = X[t]!;
    const c0 = x[0]! - m0,
      c1 = x[1]! - m1,
      c2 = x[2]! - m2,
      c3 = x[3]! - m3;
    let gi = g * c0;
    s0 += gi * c0;
    gi = g * c1;
    s4 += gi * c0;
    s5 += gi * c1;
    gi = g * c2;
    s8 += gi * c0;
    s9 += gi * c1;
    s10 += gi * c2;
    gi = g * c3;
    s12 += gi * c0;
    s13 += gi * c1;
    s14 += gi * c2;
    s15 += gi * c3;
  }
  return Float64Array.of(s0, 0, 0, 0, s4, s5, 0, 0, s8, s9, s10, 0, s12, s13, s14, s15);
}

/** Runs EM from `initial` until the log-likelihood gain is below `tol` or `maxIter` M-steps are done. */
export function baumWelch(X: Observations, initial: GaussianHmm, settings: EmSettings): EmRun {
  validateModel(initial);
  validateObservations(X, initial.d);
  let model = initial;
  const history: number[] = [];
  let converged = false;
  let iterations = 0;
  for (;;) {
    const e = eStep(model, X, true);
    history.push(e.logLikelihood);
    const previous = history[history.length - 2];
    // |gain|, not gain: a start outside the model family (untied covariances with `tiedCovariance`, say) can
    // lose likelihood on the first step, and that is no reason to stop.
    if (previous !== undefined && Math.abs(e.logLikelihood - previous) < settings.tol) {
      converged = true;
      break;
    }
    if (iterations >= settings.maxIter) break;
    model = mStep(X, e, model, settings);
    iterations++;
  }
  return { model, logLikelihood: history[history.length - 1]!, history, converged, iterations };
}
