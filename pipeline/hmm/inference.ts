/**
 * Inference in a hidden Markov model given its log-emission matrix (see model.ts): the forward (filtering)
 * recursion with the log-likelihood, the backward recursion, smoothed state probabilities, pairwise
 * (two-slice) posteriors and expected transition counts, and Viterbi decoding. The algorithms are those of
 * Rabiner (1989), §III (forward–backward, eqs. 18–27 and 37; Viterbi, eqs. 30–35) and §V.A (scaling).
 *
 * Numerics: the recursions are in log space where it matters. The forward pass keeps the filtered
 * distribution p(s_t | y_1..t) normalised at every step and accumulates log c_t = log p(y_t | y_1..t−1) with
 * a log-sum-exp, so nothing under- or overflows however long the series (Rabiner's scaled α̂ with the scale
 * factors kept as logarithms). The backward pass stores log β̂_t(i) = log p(y_t+1..T | s_t = i) − Σ_{u>t} log c_u,
 * the β scaled by the same factors, so that γ_t(i) = α̂_t(i) β̂_t(i) and no separate normalisation constant is
 * needed. The one-step prediction Σ_i α̂_t(i) a_ij multiplies probabilities directly (α̂ is normalised, so
 * what could underflow there is below e^−708 and negligible); the backward matrix–vector products inside
 * log-sum-exps are max-shifted sums of probabilities (log Σ_j a_ij e^{v_j} = M + log Σ_j a_ij e^{v_j − M},
 * M = max v): one exp per state and step instead of K, exact unless a result is below e^−708 of the largest
 * term, where it would round to zero anyway.
 *
 * Indices are 0-based: t = 0 … T−1. Matrices over time are flat T × K `Float64Array`s, row-major.
 */
import { HmmError, invalidArgument } from './errors.js';

/**
 * e^300 ≈ 1e130: below it α̂ a e^v cannot overflow and, where α̂ is subnormal, errs by less than 1e−170 in
 * absolute terms.
 */
const SAFE_EXP = 300;

/** The Markov-chain part of a model: what inference needs besides the emissions. */
export interface MarkovChain {
  readonly K: number;
  readonly startProb: ArrayLike<number>;
  readonly transmat: ArrayLike<number>;
}

export interface ForwardResult {
  /** log p(y_1..T) = Σ_t log c_t. */
  logLikelihood: number;
  /** p(s_t = k | y_1..t), T × K. */
  filtered: Float64Array;
  /** log p(s_t = k | y_1..t), T × K (exact where `filtered` underflows to 0). */
  logFiltered: Float64Array;
  /** log c_t = log p(y_t | y_1..t−1), length T. */
  logNormalizers: Float64Array;
}

export interface FilterStepResult {
  /** p(s_t = k | y_1..t). */
  filtered: Float64Array;
  /** log p(s_t = k | y_1..t). */
  logFiltered: Float64Array;
  /** log p(y_t | y_1..t−1): the step's contribution to the log-likelihood. */
  logNormalizer: number;
}

export interface ViterbiResult {
  /** The most likely state sequence arg max_s p(s_1..T | y_1..T); ties go to the lower state index. */
  path: Int32Array;
  /** log p(s*_1..T, y_1..T) of that sequence. */
  logProbability: number;
}

function checkChain(chain: MarkovChain, logEmission: ArrayLike<number>): number {
  const { K } = chain;
  if (chain.startProb.length !== K) throw invalidArgument('startProb', `expected ${K} entries, got ${chain.startProb.length}`);
  if (chain.transmat.length !== K * K) throw invalidArgument('transmat', `expected ${K * K} entries, got ${chain.transmat.length}`);
  if (logEmission.length === 0 || logEmission.length % K !== 0) {
    throw invalidArgument('logEmission', `expected T × ${K} entries with T ≥ 1, got ${logEmission.length}`);
  }
  return logEmission.length / K;
}

/**
 * The Bayes update of one step: from the predicted distribution p(s_t | y_1..t−1) and the log emissions of
 * y_t (logEmission[eOffset …]) to p(s_t | y_1..t), written at [outOffset …] of `filtered` and `logFiltered`,
 * and log p(y_t | y_1..t−1), returned, by a log-sum-exp over states.
 */
function updateInto(
  predicted: ArrayLike<number>,
  logEmission: ArrayLike<number>,
  eOffset: number,
  K: number,
  t: number,
  filtered: Float64Array,
  logFiltered: Float64Array,
  outOffset: number,
): number {
  let max = -Infinity;
  for (let k = 0; k < K; k++) {
    const v = Math.log(predicted[k]!) + logEmission[eOffset + k]!;
    logFiltered[outOffset + k] = v;
    if (v > max) max = v;
  }
  if (!(max > -Infinity) || Number.isNaN(max)) {
    throw new HmmError('hmm_zero_likelihood', `observation ${t} has zero probability under every reachable state`);
  }
  let sum = 0;
  for (let k = 0; k < K; k++) sum += Math.exp(logFiltered[outOffset + k]! - max);
  const logNormalizer = max + Math.log(sum);
  for (let k = 0; k < K; k++) {
    const lf = logFiltered[outOffset + k]! - logNormalizer;
    logFiltered[outOffset + k] = lf;
    filtered[outOffset + k] = Math.exp(lf);
  }
  return logNormalizer;
}

/** p(s_t = j | y_1..t−1) = Σ_i p(s_t−1 = i | y_1..t−1) a_ij, from prev[offset …] into `out`. */
function predictInto(prev: ArrayLike<number>, offset: number, transmat: ArrayLike<number>, K: number, out: Float64Array): void {
  out.fill(0);
  for (let i = 0; i < K; i++) {
    const p = prev[offset + i]!;
    if (p === 0) continue;
    for (let j = 0; j < K; j++) out[j] = out[j]! + p * transmat[i * K + j]!;
  }
}

/** One-step prediction p(s_t = j | y_1..t−1) = Σ_i p(s_t−1 = i | y_1..t−1) a_ij. */
export function predictStep(prevFiltered: ArrayLike<number>, transmat: ArrayLike<number>): Float64Array {
  const K = prevFiltered.length;
  if (transmat.length !== K * K) throw invalidArgument('transmat', `expected ${K * K} entries for K = ${K}, got ${transmat.length}`);
  const predicted = new Float64Array(K);
  predictInto(prevFiltered, 0, transmat, K, predicted);
  return predicted;
}

/**
 * Continues filtering by one observation from a known filtered distribution, without refitting: what the
 * walk-forward publishes between refits. `logEmissionRow` is one row of the log-emission matrix (length K).
 */
export function filterStep(prevFiltered: ArrayLike<number>, logEmissionRow: ArrayLike<number>, transmat: ArrayLike<number>): FilterStepResult {
  const K = prevFiltered.length;
  if (logEmissionRow.length !== K) throw invalidArgument('logEmissionRow', `expected ${K} entries, got ${logEmissionRow.length}`);
  const filtered = new Float64Array(K);
  const logFiltered = new Float64Array(K);
  const logNormalizer = updateInto(predictStep(prevFiltered, transmat), logEmissionRow, 0, K, 0, filtered, logFiltered, 0);
  return { filtered, logFiltered, logNormalizer };
}

/** The forward recursion (Rabiner eqs. 19–21, scaled): filtered probabilities and the log-likelihood. */
export function forward(chain: MarkovChain, logEmission: ArrayLike<number>): ForwardResult {
  const T = checkChain(chain, logEmission);
  const { K } = chain;
  const filtered = new Float64Array(T * K);
  const logFiltered = new Float64Array(T * K);
  const logNormalizers = new Float64Array(T);
  const predicted = new Float64Array(K);
  let logLikelihood = 0;
  for (let t = 0; t < T; t++) {
    if (t === 0) predicted.set(chain.startProb);
    else predictInto(filtered, (t - 1) * K, chain.transmat, K, predicted);
    const logNormalizer = updateInto(predicted, logEmission, t * K, K, t, filtered, logFiltered, t * K);
    logNormalizers[t] = logNormalizer;
    logLikelihood += logNormalizer;
  }
  return { logLikelihood, filtered, logFiltered, logNormalizers };
}

/**
 * v_{t,j} = log b_j(y_t) − log c_t + log β̂_t(j): the term shared by the backward step into t − 1 and the
 * pairwise posteriors of (t − 1, t).
 */
function backwardTerms(
  logEmission: ArrayLike<number>,
  logNormalizers: ArrayLike<number>,
  logBeta: ArrayLike<number>,
  t: number,
  K: number,
  v: Float64Array = new Float64Array(K),
): Float64Array {
  for (let j = 0; j < K; j++) v[j] = logEmission[t * K + j]! - logNormalizers[t]! + logBeta[t * K + j]!;
  return v;
}

/**
 * The backward recursion (Rabiner eqs. 24–25) scaled by the forward pass's factors: log β̂, T × K, with
 * log β̂_{T−1} = 0 and β̂_t(i) = Σ_j a_ij b_j(y_t+1) β̂_t+1(j) / c_t+1.
 */
export function backward(chain: MarkovChain, logEmission: ArrayLike<number>, logNormalizers: ArrayLike<number>): Float64Array {
  const T = checkChain(chain, logEmission);
  const { K, transmat } = chain;
  if (logNormalizers.length !== T) throw invalidArgument('logNormalizers', `expected ${T} entries, got ${logNormalizers.length}`);
  const logBeta = new Float64Array(T * K);
  const v = new Float64Array(K);
  const w = new Float64Array(K);
  for (let t = T - 2; t >= 0; t--) {
    backwardTerms(logEmission, logNormalizers, logBeta, t + 1, K, v);
    let max = -Infinity;
    for (let j = 0; j < K; j++) if (v[j]! > max) max = v[j]!;
    if (!(max > -Infinity)) throw new HmmError('hmm_zero_likelihood', `observations after ${t} have zero probability from every state`);
    for (let j = 0; j < K; j++) w[j] = Math.exp(v[j]! - max);
    for (let i = 0; i < K; i++) {
      let sum = 0;
      for (let j = 0; j < K; j++) sum += transmat[i * K + j]! * w[j]!;
      logBeta[t * K + i] = max + Math.log(sum);
    }
  }
  return logBeta;
}

/**
 * Smoothed probabilities p(s_t = k | y_1..T) = α̂_t(k) β̂_t(k) (Rabiner eq. 27), T × K. Each row is
 * renormalised, which changes it only by rounding, so that rows sum to 1 to the last bit a sum can.
 */
export function smoothed(forwardResult: ForwardResult, logBeta: ArrayLike<number>): Float64Array {
  const { logFiltered } = forwardResult;
  if (logBeta.length !== logFiltered.length) throw invalidArgument('logBeta', `expected ${logFiltered.length} entries, got ${logBeta.length}`);
  const K = logFiltered.length / forwardResult.logNormalizers.length;
  const gamma = new Float64Array(logFiltered.length);
  for (let offset = 0; offset < gamma.length; offset += K) {
    let sum = 0;
    for (let k = 0; k < K; k++) {
      const g = Math.exp(logFiltered[offset + k]! + logBeta[offset + k]!);
      gamma[offset + k] = g;
      sum += g;
    }
    for (let k = 0; k < K; k++) gamma[offset + k] = gamma[offset + k]! / sum;
  }
  return gamma;
}

/**
 * Pairwise posteriors ξ_t(i, j) = p(s_t = i, s_t+1 = j | y_1..T) for t = 0 … T−2 (Rabiner eq. 37), K × K
 * row-major; each entry is one exp of a sum of logs, which is ≤ 0, so none can overflow.
 */
export function pairwiseProbabilities(
  chain: MarkovChain,
  logEmission: ArrayLike<number>,
  forwardResult: ForwardResult,
  logBeta: ArrayLike<number>,
  t: number,
): Float64Array {
  const T = checkChain(chain, logEmission);
  if (!Number.isInteger(t) || t < 0 || t > T - 2) throw invalidArgument('t', `expected an integer in [0, ${T - 2}], got ${t}`);
  const { K } = chain;
  const logA = Float64Array.from(chain.transmat, Math.log);
  const v = backwardTerms(logEmission, forwardResult.logNormalizers, logBeta, t + 1, K);
  const xi = new Float64Array(K * K);
  for (let i = 0; i < K; i++) {
    const la = forwardResult.logFiltered[t * K + i]!;
    for (let j = 0; j < K; j++) xi[i * K + j] = Math.exp(la + logA[i * K + j]! + v[j]!);
  }
  return xi;
}

/**
 * Expected transition counts Σ_{t=0}^{T−2} ξ_t(i, j), K × K: the E-step statistic for the transition matrix.
 * ξ_t(i, j) = α̂_t(i) a_ij e^{v_j} with one exp per state and step; where e^{v_j} would be huge (the state was
 * all but ruled out by the prediction and then confirmed), the entry is taken as one exp of the sum of logs, as
 * in `pairwiseProbabilities`, which cannot overflow.
 */
export function expectedTransitions(
  chain: MarkovChain,
  logEmission: ArrayLike<number>,
  forwardResult: ForwardResult,
  logBeta: ArrayLike<number>,
): Float64Array {
  const T = checkChain(chain, logEmission);
  const { K, transmat } = chain;
  const logA = Float64Array.from(transmat, Math.log);
  const counts = new Float64Array(K * K);
  const { filtered, logFiltered, logNormalizers } = forwardResult;
  const v = new Float64Array(K);
  const w = new Float64Array(K);
  for (let t = 0; t + 1 < T; t++) {
    backwardTerms(logEmission, logNormalizers, logBeta, t + 1, K, v);
    for (let j = 0; j < K; j++) w[j] = v[j]! < SAFE_EXP ? Math.exp(v[j]!) : NaN;
    for (let i = 0; i < K; i++) {
      const alpha = filtered[t * K + i]!;
      if (alpha === 0 && logFiltered[t * K + i] === -Infinity) continue;
      for (let j = 0; j < K; j++) {
        const xi = Number.isNaN(w[j]!) ? Math.exp(logFiltered[t * K + i]! + logA[i * K + j]! + v[j]!) : alpha * transmat[i * K + j]! * w[j]!;
        counts[i * K + j] = counts[i * K + j]! + xi;
      }
    }
  }
  return counts;
}

/** The Viterbi algorithm (Rabiner eqs. 32a–35) in logarithms, which need no scaling. */
export function viterbi(chain: MarkovChain, logEmission: ArrayLike<number>): ViterbiResult {
  const T = checkChain(chain, logEmission);
  const { K } = chain;
  const logA = Float64Array.from(chain.transmat, Math.log);
  const backPointers = new Int32Array(T * K);
  let delta = new Float64Array(K);
  let next = new Float64Array(K);
  for (let k = 0; k < K; k++) delta[k] = Math.log(chain.startProb[k]!) + logEmission[k]!;
  for (let t = 1; t < T; t++) {
    for (let j = 0; j < K; j++) {
      let best = -Infinity;
      let arg = 0;
      for (let i = 0; i < K; i++) {
        const score = delta[i]! + logA[i * K + j]!;
        if (score > best) {
          best = score;
          arg = i;
        }
      }
      next[j] = best + logEmission[t * K + j]!;
      backPointers[t * K + j] = arg;
    }
    [delta, next] = [next, delta];
  }
  let last = 0;
  for (let k = 1; k < K; k++) if (delta[k]! > delta[last]!) last = k;
  const logProbability = delta[last]!;
  if (!(logProbability > -Infinity)) throw new HmmError('hmm_zero_likelihood', 'every state sequence has zero probability');
  const path = new Int32Array(T);
  path[T - 1] = last;
  for (let t = T - 1; t > 0; t--) path[t - 1] = backPointers[t * K + path[t]!]!;
  return { path, logProbability };
}
