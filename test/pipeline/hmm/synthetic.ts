/**
 * Synthetic data for the HMM tests: a seeded draw of states and observations from a known Gaussian HMM
 * (ancestral sampling: s_1 ~ π, s_t+1 ~ A[s_t], x_t = μ_{s_t} + L_{s_t} z with z ~ N(0, I) and L L ᵀ = Σ).
 */
import { createRng } from '../../../pipeline/random.js';
import { cholesky } from '../../../pipeline/hmm/linalg.js';
import type { GaussianHmm } from '../../../pipeline/hmm/model.js';

export interface Sample {
  states: Int32Array;
  X: Float64Array[];
}

function draw(p: ArrayLike<number>, offset: number, K: number, u: number): number {
  let acc = 0;
  for (let k = 0; k < K; k++) {
    acc += p[offset + k]!;
    if (u < acc) return k;
  }
  return K - 1;
}

export function sampleHmm(model: GaussianHmm, T: number, seed: number): Sample {
  const rng = createRng(seed);
  const { K, d } = model;
  const factors = model.covars.map((c) => cholesky(c, d));
  const states = new Int32Array(T);
  const X: Float64Array[] = [];
  let s = draw(model.startProb, 0, K, rng.uniform());
  for (let t = 0; t < T; t++) {
    if (t > 0) s = draw(model.transmat, s * K, K, rng.uniform());
    states[t] = s;
    const z = Float64Array.from({ length: d }, () => rng.normal());
    const l = factors[s]!;
    const x = Float64Array.from(model.means[s]!);
    for (let i = 0; i < d; i++) for (let j = 0; j <= i; j++) x[i] = x[i]! + l[i * d + j]! * z[j]!;
    X.push(x);
  }
  return { states, X };
}

/**
 * A 4-state model in d dimensions shaped like the regime model's: persistent states (a_ii 0.97–0.99), means a
 * few standard deviations apart, correlated covariances of different scales.
 */
export function regimeLikeModel(d: number): GaussianHmm {
  const K = 4;
  const transmat = Float64Array.from(
    [
      [0.985, 0.005, 0.005, 0.005],
      [0.01, 0.97, 0.01, 0.01],
      [0.005, 0.01, 0.98, 0.005],
      [0.01, 0.01, 0.01, 0.97],
    ].flat(),
  );
  const centres = [
    [0, 0, 0, 0, 0, 0, 0, 0],
    [2, -1, 1, 0.5, -0.5, 1, 0, 0.5],
    [-2, 1, 2, -1, 0.5, 0, 1, -0.5],
    [1, 3, -2, 1.5, 1, -1, 0.5, 1],
  ];
  const scales = [0.6, 0.8, 0.7, 1.2];
  const means = centres.map((c) => Float64Array.from(c.slice(0, d)));
  const covars = scales.map((s, k) => {
    const c = new Float64Array(d * d);
    for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) c[i * d + j] = s * s * (i === j ? 1 : 0.3 * (k % 2 === 0 ? 1 : -1) ** (i + j));
    return c;
  });
  return { K, d, startProb: Float64Array.of(0.25, 0.25, 0.25, 0.25), transmat, means, covars };
}
