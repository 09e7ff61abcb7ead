/**
 * The Gaussian hidden Markov model: K hidden states, a first-order Markov chain over them, and in state k a
 * multivariate normal emission N(μ_k, Σ_k) of dimension d (L. R. Rabiner, "A tutorial on hidden Markov models
 * and selected applications in speech recognition", Proc. IEEE 77(2), 1989, §II and §IV: λ = (A, B, π) with
 * continuous densities, eq. 49, one mixture component per state).
 *
 * Observations: `X` is an array of T rows, each a `Float64Array` (or any array-like of numbers) of length d —
 * one row per day, the shape in which the pipeline already holds its factors. The log-emission matrix is a flat
 * `Float64Array` of T × K, row-major: logEmission[t·K + k] = log N(x_t; μ_k, Σ_k).
 */
import { HmmError, invalidArgument } from './errors.js';
import { cholesky, logDetFromCholesky, mahalanobisSquared } from './linalg.js';

/** Observations: T rows of d numbers. */
export type Observations = ReadonlyArray<ArrayLike<number>>;

export interface GaussianHmm {
  /** Number of hidden states. */
  readonly K: number;
  /** Dimension of an observation. */
  readonly d: number;
  /** π_k = P(s_1 = k), length K. */
  readonly startProb: Float64Array;
  /** a_ij = P(s_{t+1} = j | s_t = i), K × K row-major; rows sum to 1. */
  readonly transmat: Float64Array;
  /** μ_k, K vectors of length d. */
  readonly means: Float64Array[];
  /** Σ_k, K matrices d × d row-major, symmetric positive definite. */
  readonly covars: Float64Array[];
}

const LOG_2PI = Math.log(2 * Math.PI);
/** Probabilities that should sum to 1 may miss by rounding; more than this is a caller's error. */
const SUM_TOLERANCE = 1e-8;

function checkDistribution(name: string, p: ArrayLike<number>, from: number, length: number): void {
  let sum = 0;
  for (let i = from; i < from + length; i++) {
    const v = p[i]!;
    if (!(v >= 0 && v <= 1)) throw invalidArgument(name, `entry ${i} is ${v}, not a probability`);
    sum += v;
  }
  if (Math.abs(sum - 1) > SUM_TOLERANCE) throw invalidArgument(name, `entries ${from}…${from + length - 1} sum to ${sum}, not 1`);
}

/** Checks shapes, probabilities and that every covariance is positive definite; throws `HmmError`. */
export function validateModel(model: GaussianHmm): void {
  const { K, d } = model;
  if (!Number.isInteger(K) || K < 1) throw invalidArgument('model.K', `expected a positive integer, got ${K}`);
  if (!Number.isInteger(d) || d < 1) throw invalidArgument('model.d', `expected a positive integer, got ${d}`);
  if (model.startProb.length !== K) throw invalidArgument('model.startProb', `expected ${K} entries, got ${model.startProb.length}`);
  checkDistribution('model.startProb', model.startProb, 0, K);
  if (model.transmat.length !== K * K) throw invalidArgument('model.transmat', `expected ${K * K} entries, got ${model.transmat.length}`);
  for (let i = 0; i < K; i++) checkDistribution('model.transmat', model.transmat, i * K, K);
  if (model.means.length !== K) throw invalidArgument('model.means', `expected ${K} vectors, got ${model.means.length}`);
  if (model.covars.length !== K) throw invalidArgument('model.covars', `expected ${K} matrices, got ${model.covars.length}`);
  for (let k = 0; k < K; k++) {
    const mean = model.means[k]!;
    if (mean.length !== d) throw invalidArgument(`model.means[${k}]`, `expected ${d} entries, got ${mean.length}`);
    if (!mean.every(Number.isFinite)) throw invalidArgument(`model.means[${k}]`, 'has a non-finite entry');
    const cov = model.covars[k]!;
    if (cov.length !== d * d) throw invalidArgument(`model.covars[${k}]`, `expected ${d * d} entries, got ${cov.length}`);
    try {
      cholesky(cov, d);
    } catch (error) {
      if (error instanceof HmmError && error.code === 'hmm_not_positive_definite') {
        throw new HmmError('hmm_not_positive_definite', `model.covars[${k}]: ${error.message}`);
      }
      throw error;
    }
  }
}

/** Checks that X is T ≥ 1 rows of d finite numbers. */
export function validateObservations(X: Observations, d: number): void {
  if (X.length < 1) throw invalidArgument('X', 'expected at least one observation');
  for (let t = 0; t < X.length; t++) {
    const row = X[t]!;
    if (row.length !== d) throw invalidArgument('X', `row ${t} has ${row.length} entries, expected ${d}`);
    for (let j = 0; j < d; j++) if (!Number.isFinite(row[j]!)) throw invalidArgument('X', `row ${t} entry ${j} is ${row[j]}`);
  }
}

/**
 * The T × K matrix of log emission densities log N(x_t; μ_k, Σ_k)
 * = −½ (d log 2π + log det Σ_k + (x_t − μ_k)ᵀ Σ_k⁻¹ (x_t − μ_k)).
 * Each Σ_k is factored once; the quadratic form is a triangular solve, never an explicit inverse. `checked`:
 * the caller has validated X already (EM evaluates the same X every iteration).
 */
export function logEmissions(model: GaussianHmm, X: Observations, checked = false): Float64Array {
  const { K, d } = model;
  if (!checked) validateObservations(X, d);
  const T = X.length;
  const out = new Float64Array(T * K);
  const scratch = new Float64Array(d);
  for (let k = 0; k < K; k++) {
    const l = cholesky(model.covars[k]!, d);
    const constant = -0.5 * (d * LOG_2PI + logDetFromCholesky(l, d));
    const mean = model.means[k]!;
    if (d === 4) {
      logDensities4(l, constant, mean, X, out, k, K);
      continue;
    }
    for (let t = 0; t < T; t++) out[t * K + k] = constant - 0.5 * mahalanobisSquared(l, d, X[t]!, mean, scratch);
  }
  return out;
}

/**
 * The column k of `logEmissions` for d = 4, the dimension of the regime model (four PCA factors), where it is
 * most of the time of a fit: `mahalanobisSquared`'s triangular solve written out with the factor's entries in
 * locals. The same operations in the same order, so the same numbers bit for bit (model.test.ts compares the two).
 */
function logDensities4(l: Float64Array, constant: number, mean: ArrayLike<number>, X: Observations, out: Float64Array, k: number, K: number): void {
  const l00 = l[0]!,
    l10 = l[4]!,
    l11 = l[5]!,
    l20 = l[8]!,
    l21 = l[9]!,
    l22 = l[10]!,
    l30 = l[12]!,
    l31 = l[13]!,
    l32 = l[14]!,
    l33 = l[15]!;
  const m0 = mean[0]!,
    m1 = mean[1]!,
    m2 = mean[2]!,
    m3 = mean[3]!;
  for (let t = 0; t < X.length; t++) {
    const x = X[t]!;
    const z0 = (x[0]! - m0) / l00;
    let total = 0;
    total += z0 * z0;
    let s = x[1]! - m1;
    s -= l10 * z0;
    const z1 = s / l11;
    total += z1 * z1;
    s = x[2]! - m2;
    s -= l20 * z0;
    s -= l21 * z1;
    const z2 = s / l22;
    total += z2 * z2;
    s = x[3]! - m3;
    s -= l30 * z0;
    s -= l31 * z1;
    s -= l32 * z2;
    const z3 = s / l33;
    total += z3 * z3;
    out[t * K + k] = constant - 0.5 * total;
  }
}

/** A deep copy, so a fit can start from a model without changing it. */
export function cloneModel(model: GaussianHmm): GaussianHmm {
  return {
    K: model.K,
    d: model.d,
    startProb: Float64Array.from(model.startProb),
    transmat: Float64Array.from(model.transmat),
    means: model.means.map((m) => Float64Array.from(m)),
    covars: model.covars.map((c) => Float64Array.from(c)),
  };
}
