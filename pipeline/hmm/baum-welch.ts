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
import { logEmissions, validateModel, type GaussianHmm, type Observations } from './model.js';
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

/** The E-step: log-likelihood, smoothed probabilities and expected transition counts of `model` on X. */
export function eStep(model: GaussianHmm, X: Observations): EStep {
  const logB = logEmissions(model, X);
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

  const means: Float64Array[] = [];
  for (let k = 0; k < K; k++) {
    if (weights[k]! < MIN_STATE_WEIGHT) {
      means.push(Float64Array.from(previous.means[k]!));
      continue;
    }
    const mean = new Float64Array(d);
    for (let t = 0; t < T; t++) {
      const g = gamma[t * K + k]!;
      const x = X[t]!;
      for (let j = 0; j < d; j++) mean[j] = mean[j]! + g * x[j]!;
    }
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
 * The scatter matrices Σ_t γ_t(k)(x_t − μ_k)(x_t − μ_k)ᵀ of the M-step, lower triangle (mirrored by the
 * caller). For d = 4, the regime model's dimension, where it is most of an M-step's time, the inner loops are
 * written out: the same operations in the same order, so the same numbers bit for bit (baum-welch.test.ts
 * compares the two).
 */
export function scatterMatrices(X: Observations, gamma: Float64Array, means: readonly Float64Array[], K: number, d: number, unrolled = true): Float64Array[] {
  const scatters = means.map(() => new Float64Array(d * d));
  const centred = new Float64Array(d);
  for (let t = 0; t < X.length; t++) {
    const x = X[t]!;
    for (let k = 0; k < K; k++) {
      const g = gamma[t * K + k]!;
      if (g === 0) continue;
      const mean = means[k]!;
      const s = scatters[k]!;
      if (d === 4 && unrolled) {
        const c0 = x[0]! - mean[0]!, c1 = x[1]! - mean[1]!, c2 = x[2]! - mean[2]!, c3 = x[3]! - mean[3]!;
        let gi = g * c0;
        s[0] = s[0]! + gi * c0;
        gi = g * c1;
        s[4] = s[4]! + gi * c0;
        s[5] = s[5]! + gi * c1;
        gi = g * c2;
        s[8] = s[8]! + gi * c0;
        s[9] = s[9]! + gi * c1;
        s[10] = s[10]! + gi * c2;
        gi = g * c3;
        s[12] = s[12]! + gi * c0;
        s[13] = s[13]! + gi * c1;
        s[14] = s[14]! + gi * c2;
        s[15] = s[15]! + gi * c3;
        continue;
      }
      for (let j = 0; j < d; j++) centred[j] = x[j]! - mean[j]!;
      for (let i = 0; i < d; i++) {
        const gi = g * centred[i]!;
        for (let j = 0; j <= i; j++) s[i * d + j] = s[i * d + j]! + gi * centred[j]!;
      }
    }
  }
  return scatters;
}

/** Runs EM from `initial` until the log-likelihood gain is below `tol` or `maxIter` M-steps are done. */
export function baumWelch(X: Observations, initial: GaussianHmm, settings: EmSettings): EmRun {
  validateModel(initial);
  let model = initial;
  const history: number[] = [];
  let converged = false;
  let iterations = 0;
  for (;;) {
    const e = eStep(model, X);
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
