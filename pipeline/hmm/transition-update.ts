/**
 * The M-step for the Markov chain of a Gaussian HMM: new start probabilities and transition matrix from the
 * E-step's expected counts.
 *
 * Two conventions for the initial distribution:
 * - `estimate` (Baum-Welch proper, Rabiner 1989 eqs. 40a–40b): π = γ_1 and a_ij = Σ_t ξ_t(i, j) / Σ_t γ_t(i);
 *   both closed form.
 * - `stationary`: π is tied to the stationary distribution of A, the convention of statsmodels'
 *   MarkovRegression and Stata's mswitch (Hamilton 1994, §22.2). The expected complete-data log-likelihood
 *   in A is then Q(A) = Σ_ij N_ij log a_ij + Σ_k g_k log π_k(A) (N the expected transitions, g = γ_1), which
 *   has no closed-form maximiser. We increase it by ascent from the current A (a generalised EM step,
 *   A. P. Dempster, N. M. Laird and D. B. Rubin, JRSS B 39, 1977, §3, which keeps the likelihood from
 *   decreasing) and iterate the ascent to convergence, so that EM's fixed points are the constrained
 *   maximum-likelihood points.
 *
 * The ascent: the derivative of π(A) is dπ = π dA Z with Z = (I − A + 1π)⁻¹, the fundamental matrix
 * (P. J. Schweitzer, "Perturbation theory and finite Markov chains", J. Appl. Prob. 5, 1968), so
 * ∂Q/∂a_ij = N_ij / a_ij + π_i u_j with u = Z (g / π). The step direction is the row-wise fixed-point map
 * a_ij ← (N_ij + a_ij π_i (u_j − Σ_l a_il u_l)) / n_i (n_i = Σ_j N_ij), which is the closed-form update when the
 * π term vanishes and is stationary exactly where the gradient is constant along each row (a KKT point on the
 * simplex); a backtracking line search keeps every entry positive and Q strictly increasing.
 */
import { stationaryDistribution } from './chain.js';
import { solveLinear } from './linalg.js';

export type StartProbMode = 'estimate' | 'stationary';

export interface ChainUpdate {
  startProb: Float64Array;
  transmat: Float64Array;
}

/** Below this expected number of visits a state's row carries no information: the previous row is kept. */
const MIN_ROW_COUNT = 1e-10;

function rowNormalised(counts: ArrayLike<number>, previous: ArrayLike<number>, K: number): Float64Array {
  const a = new Float64Array(K * K);
  for (let i = 0; i < K; i++) {
    let n = 0;
    for (let j = 0; j < K; j++) n += counts[i * K + j]!;
    for (let j = 0; j < K; j++) a[i * K + j] = n > MIN_ROW_COUNT ? counts[i * K + j]! / n : previous[i * K + j]!;
  }
  return a;
}

/** Q(A) of the module comment; −∞ where A gives a counted transition or a visited start state probability 0. */
function objective(counts: ArrayLike<number>, gamma0: ArrayLike<number>, a: ArrayLike<number>, K: number): number {
  let q = 0;
  for (let i = 0; i < K * K; i++) if (counts[i]! > 0) q += counts[i]! * Math.log(a[i]!);
  let pi: Float64Array;
  try {
    pi = stationaryDistribution(a);
  } catch {
    return -Infinity;
  }
  for (let k = 0; k < K; k++) if (gamma0[k]! > 0) q += gamma0[k]! * Math.log(pi[k]!);
  return q;
}

/** The fixed-point target of the module comment for the current A. */
function ascentTarget(counts: ArrayLike<number>, gamma0: ArrayLike<number>, a: Float64Array, K: number): Float64Array {
  const pi = stationaryDistribution(a);
  // (I − A + 1π) u = g / π; 1π is the matrix whose every row is π.
  const m = new Float64Array(K * K);
  for (let i = 0; i < K; i++) for (let j = 0; j < K; j++) m[i * K + j] = (i === j ? 1 : 0) - a[i * K + j]! + pi[j]!;
  const r = new Float64Array(K);
  for (let k = 0; k < K; k++) r[k] = gamma0[k]! > 0 ? gamma0[k]! / pi[k]! : 0;
  const u = solveLinear(m, K, r);
  const target = new Float64Array(K * K);
  for (let i = 0; i < K; i++) {
    let n = 0;
    let mean = 0;
    for (let j = 0; j < K; j++) {
      n += counts[i * K + j]!;
      mean += a[i * K + j]! * u[j]!;
    }
    for (let j = 0; j < K; j++) {
      target[i * K + j] = n > MIN_ROW_COUNT ? (counts[i * K + j]! + a[i * K + j]! * pi[i]! * (u[j]! - mean)) / n : a[i * K + j]!;
    }
  }
  return target;
}

function stationaryTransmat(counts: ArrayLike<number>, gamma0: ArrayLike<number>, previous: ArrayLike<number>, K: number): Float64Array {
  // Start from the better of the previous A and the closed-form A (which ignores the π term): both are
  // feasible, and taking the better one keeps the step a generalised EM step.
  const closedForm = rowNormalised(counts, previous, K);
  let a: Float64Array = Float64Array.from(previous);
  let q = objective(counts, gamma0, a, K);
  const qClosed = objective(counts, gamma0, closedForm, K);
  if (qClosed > q) {
    a = closedForm;
    q = qClosed;
  }
  for (let iter = 0; iter < 200; iter++) {
    const target = ascentTarget(counts, gamma0, a, K);
    let accepted = false;
    for (let step = 1; step >= 1 / 1024; step /= 2) {
      const candidate = new Float64Array(K * K);
      let feasible = true;
      for (let i = 0; i < K * K; i++) {
        const v = a[i]! + step * (target[i]! - a[i]!);
        if (!(v > 0) && counts[i]! > 0) feasible = false;
        candidate[i] = Math.max(v, 0);
      }
      if (!feasible) continue;
      // Renormalise rows: the direction preserves row sums in exact arithmetic only.
      for (let i = 0; i < K; i++) {
        let s = 0;
        for (let j = 0; j < K; j++) s += candidate[i * K + j]!;
        for (let j = 0; j < K; j++) candidate[i * K + j] = candidate[i * K + j]! / s;
      }
      const qc = objective(counts, gamma0, candidate, K);
      if (qc > q) {
        let change = 0;
        for (let i = 0; i < K * K; i++) change = Math.max(change, Math.abs(candidate[i]! - a[i]!));
        a = candidate;
        q = qc;
        accepted = change > 1e-14;
        break;
      }
    }
    if (!accepted) break;
  }
  return a;
}

/**
 * The M-step for (π, A) from the expected transition counts N (K × K, Σ_t ξ_t), the first smoothed
 * distribution γ_1 and the current A (kept for rows of states that are never visited).
 */
export function updateChain(counts: ArrayLike<number>, gamma0: ArrayLike<number>, previous: ArrayLike<number>, mode: StartProbMode): ChainUpdate {
  const K = gamma0.length;
  if (mode === 'estimate') {
    return { startProb: Float64Array.from(gamma0), transmat: rowNormalised(counts, previous, K) };
  }
  const transmat = stationaryTransmat(counts, gamma0, previous, K);
  return { startProb: stationaryDistribution(transmat), transmat };
}
