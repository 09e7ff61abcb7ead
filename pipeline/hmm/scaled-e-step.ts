/**
 * The E-step's statistics (log-likelihood, smoothed probabilities γ, expected transitions Σ_t ξ_t) by the
 * scaled forward–backward recursions of Rabiner (1989, §V.A), in probabilities rather than logarithms: one
 * exp per state and step (the emissions, shifted by their largest) and one log per step, where the
 * log-space recursions of inference.ts take about seven per state and step. EM spends most of its time
 * here, so this is the path every Baum-Welch iteration tries first.
 *
 * The recursions, with e_t(k) = b_k(y_t) / max_k b_k(y_t) = exp(log b_t(k) − m_t):
 *   α̂_t = normalise(pred_t ∘ e_t), s_t its normaliser, log c_t = m_t + log s_t;
 *   β̂_T−1 = 1, β̂_t(i) = Σ_j a_ij w_j with w_j = e_t+1(j) β̂_t+1(j) / s_t+1;
 *   γ_t = α̂_t ∘ β̂_t (renormalised, as `smoothed` does), Σ_t ξ_t(i, j) = Σ_t α̂_t(i) a_ij w_j;
 * the same quantities as inference.ts computes, up to rounding (the tests compare them to 1e−12).
 *
 * Probabilities lose what logarithms keep where a number leaves the normal range: a state's α̂ that
 * underflows (its emission e^−745 below the step's best, say) is taken as 0, which matters only if a β̂ as
 * large as the inverse of that α̂ were to multiply it. So the scaled path declines (returns null) wherever
 * such a product could be reached: a normaliser below 1e−150 (the observation all but ruled out by the
 * prediction), a β̂ above 1e100 (a state all but ruled out by the past and favoured by the future), or a
 * non-finite value; an underflowed α̂ (below 1e−308 / 1e−150) times a β̂ under 1e100 is below 1e−58. The
 * caller then evaluates that iteration in logarithms, so the errors of a model no
 * state can explain (hmm_zero_likelihood) are always the log path's. On the bundled history the scaled path
 * answered 8,096 of a full run's 8,098 E-steps, within 2e−15 of the log path's γ. Pure.
 */
import type { MarkovChain } from './inference.js';

export interface EStatistics {
  logLikelihood: number;
  /** Smoothed probabilities γ, T × K. */
  gamma: Float64Array;
  /** Expected transitions Σ_t ξ_t, K × K. */
  counts: Float64Array;
}

/** Below these (above, for β̂), the scaled recursions hand the iteration to the log-space ones. */
const MIN_NORMALISER = 1e-150;
const MAX_BETA = 1e100;

/** The E-step statistics of `chain` given its T × K log emissions, or null where logarithms are needed. */
export function scaledEStatistics(chain: MarkovChain, logEmission: Float64Array, unrolled = true): EStatistics | null {
  const { K, startProb, transmat } = chain;
  if (K === 4 && unrolled) return scaledEStatistics4(startProb, transmat, logEmission);
  const T = logEmission.length / K;
  const e = new Float64Array(T * K);
  const alpha = new Float64Array(T * K);
  const norm = new Float64Array(T);
  let logLikelihood = 0;
  for (let t = 0; t < T; t++) {
    const o = t * K;
    let m = -Infinity;
    for (let k = 0; k < K; k++) if (logEmission[o + k]! > m) m = logEmission[o + k]!;
    if (!(m > -Infinity) || !Number.isFinite(m)) return null;
    let sum = 0;
    for (let j = 0; j < K; j++) {
      const shifted = logEmission[o + j]! - m;
      const ej = Math.exp(shifted);
      e[o + j] = ej;
      let predicted: number;
      if (t === 0) predicted = startProb[j]!;
      else {
        predicted = 0;
        const p = o - K;
        for (let i = 0; i < K; i++) predicted += alpha[p + i]! * transmat[i * K + j]!;
      }
      const u = predicted * ej;
      alpha[o + j] = u;
      sum += u;
    }
    if (!(sum >= MIN_NORMALISER) || !Number.isFinite(sum)) return null;
    for (let k = 0; k < K; k++) alpha[o + k] = alpha[o + k]! / sum;
    norm[t] = sum;
    logLikelihood += m + Math.log(sum);
  }

  const gamma = new Float64Array(T * K);
  const counts = new Float64Array(K * K);
  let beta = new Float64Array(K).fill(1);
  let previous = new Float64Array(K);
  const w = new Float64Array(K);
  if (!smoothRow(alpha, beta, gamma, (T - 1) * K, K)) return null;
  for (let t = T - 2; t >= 0; t--) {
    const o = t * K;
    const next = o + K;
    const s = norm[t + 1]!;
    for (let j = 0; j < K; j++) w[j] = (e[next + j]! * beta[j]!) / s;
    [previous, beta] = [beta, previous];
    for (let i = 0; i < K; i++) {
      const a = alpha[o + i]!;
      let b = 0;
      for (let j = 0; j < K; j++) {
        const term = transmat[i * K + j]! * w[j]!;
        b += term;
        counts[i * K + j] = counts[i * K + j]! + a * term;
      }
      if (!(b <= MAX_BETA)) return null;
      beta[i] = b;
    }
    if (!smoothRow(alpha, beta, gamma, o, K)) return null;
  }
  return Number.isFinite(logLikelihood) ? { logLikelihood, gamma, counts } : null;
}

/** γ_t = α̂_t ∘ β̂_t, renormalised so that the row sums to 1 to the last bit a sum can; false if it cannot be. */
function smoothRow(alpha: Float64Array, beta: Float64Array, gamma: Float64Array, o: number, K: number): boolean {
  let sum = 0;
  for (let k = 0; k < K; k++) {
    const g = alpha[o + k]! * beta[k]!;
    gamma[o + k] = g;
    sum += g;
  }
  if (!(sum > 0) || !Number.isFinite(sum)) return false;
  for (let k = 0; k < K; k++) gamma[o + k] = gamma[o + k]! / sum;
  return true;
}

/**
 * `scaledEStatistics` for K = 4, the regime model's, where it is most of a fit's time: the loops written out
 * with the transition matrix in locals. The same operations in the same order, so the same numbers bit for
 * bit (scaled-e-step.test.ts compares the two).
 */
function scaledEStatistics4(startProb: ArrayLike<number>, A: ArrayLike<number>, logEmission: Float64Array): EStatistics | null {
  const T = logEmission.length / 4;
  const a00 = A[0]!,
    a01 = A[1]!,
    a02 = A[2]!,
    a03 = A[3]!,
    a10 = A[4]!,
    a11 = A[5]!,
    a12 = A[6]!,
    a13 = A[7]!;
  const a20 = A[8]!,
    a21 = A[9]!,
    a22 = A[10]!,
    a23 = A[11]!,
    a30 = A[12]!,
    a31 = A[13]!,
    a32 = A[14]!,
    a33 = A[15]!;
  const e = new Float64Array(T * 4);
  const alpha = new Float64Array(T * 4);
  const norm = new Float64Array(T);
  let logLikelihood = 0;
  let f0 = 0,
    f1 = 0,
    f2 = 0,
    f3 = 0;
  for (let t = 0; t < T; t++) {
    const o = t * 4;
    const l0 = logEmission[o]!,
      l1 = logEmission[o + 1]!,
      l2 = logEmission[o + 2]!,
      l3 = logEmission[o + 3]!;
    let m = -Infinity;
    if (l0 > m) m = l0;
    if (l1 > m) m = l1;
    if (l2 > m) m = l2;
    if (l3 > m) m = l3;
    if (!(m > -Infinity) || !Number.isFinite(m)) return null;
    const e0 = Math.exp(l0 - m),
      e1 = Math.exp(l1 - m),
      e2 = Math.exp(l2 - m),
      e3 = Math.exp(l3 - m);
    e[o] = e0;
    e[o + 1] = e1;
    e[o + 2] = e2;
    e[o + 3] = e3;
    let p0: number, p1: number, p2: number, p3: number;
    if (t === 0) {
      p0 = startProb[0]!;
      p1 = startProb[1]!;
      p2 = startProb[2]!;
      p3 = startProb[3]!;
    } else {
      p0 = f0 * a00 + f1 * a10 + f2 * a20 + f3 * a30;
      p1 = f0 * a01 + f1 * a11 + f2 * a21 + f3 * a31;
      p2 = f0 * a02 + f1 * a12 + f2 * a22 + f3 * a32;
      p3 = f0 * a03 + f1 * a13 + f2 * a23 + f3 * a33;
    }
    const u0 = p0 * e0,
      u1 = p1 * e1,
      u2 = p2 * e2,
      u3 = p3 * e3;
    const sum = u0 + u1 + u2 + u3;
    if (!(sum >= MIN_NORMALISER) || !Number.isFinite(sum)) return null;
    f0 = u0 / sum;
    f1 = u1 / sum;
    f2 = u2 / sum;
    f3 = u3 / sum;
    alpha[o] = f0;
    alpha[o + 1] = f1;
    alpha[o + 2] = f2;
    alpha[o + 3] = f3;
    norm[t] = sum;
    logLikelihood += m + Math.log(sum);
  }

  const gamma = new Float64Array(T * 4);
  let c00 = 0,
    c01 = 0,
    c02 = 0,
    c03 = 0,
    c10 = 0,
    c11 = 0,
    c12 = 0,
    c13 = 0;
  let c20 = 0,
    c21 = 0,
    c22 = 0,
    c23 = 0,
    c30 = 0,
    c31 = 0,
    c32 = 0,
    c33 = 0;
  let b0 = 1,
    b1 = 1,
    b2 = 1,
    b3 = 1;
  for (let t = T - 1; t >= 0; t--) {
    const o = t * 4;
    if (t < T - 1) {
      const next = o + 4;
      const s = norm[t + 1]!;
      const w0 = (e[next]! * b0) / s,
        w1 = (e[next + 1]! * b1) / s,
        w2 = (e[next + 2]! * b2) / s,
        w3 = (e[next + 3]! * b3) / s;
      const al0 = alpha[o]!,
        al1 = alpha[o + 1]!,
        al2 = alpha[o + 2]!,
        al3 = alpha[o + 3]!;
      let x0 = a00 * w0,
        x1 = a01 * w1,
        x2 = a02 * w2,
        x3 = a03 * w3;
      b0 = x0 + x1 + x2 + x3;
      c00 += al0 * x0;
      c01 += al0 * x1;
      c02 += al0 * x2;
      c03 += al0 * x3;
      x0 = a10 * w0;
      x1 = a11 * w1;
      x2 = a12 * w2;
      x3 = a13 * w3;
      b1 = x0 + x1 + x2 + x3;
      c10 += al1 * x0;
      c11 += al1 * x1;
      c12 += al1 * x2;
      c13 += al1 * x3;
      x0 = a20 * w0;
      x1 = a21 * w1;
      x2 = a22 * w2;
      x3 = a23 * w3;
      b2 = x0 + x1 + x2 + x3;
      c20 += al2 * x0;
      c21 += al2 * x1;
      c22 += al2 * x2;
      c23 += al2 * x3;
      x0 = a30 * w0;
      x1 = a31 * w1;
      x2 = a32 * w2;
      x3 = a33 * w3;
      b3 = x0 + x1 + x2 + x3;
      c30 += al3 * x0;
      c31 += al3 * x1;
      c32 += al3 * x2;
      c33 += al3 * x3;
      if (!(b0 <= MAX_BETA && b1 <= MAX_BETA && b2 <= MAX_BETA && b3 <= MAX_BETA)) return null;
    }
    const g0 = alpha[o]! * b0,
      g1 = alpha[o + 1]! * b1,
      g2 = alpha[o + 2]! * b2,
      g3 = alpha[o + 3]! * b3;
    const sum = g0 + g1 + g2 + g3;
    if (!(sum > 0) || !Number.isFinite(sum)) return null;
    gamma[o] = g0 / sum;
    gamma[o + 1] = g1 / sum;
    gamma[o + 2] = g2 / sum;
    gamma[o + 3] = g3 / sum;
  }
  if (!Number.isFinite(logLikelihood)) return null;
  const counts = Float64Array.of(c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33);
  return { logLikelihood, gamma, counts };
}
