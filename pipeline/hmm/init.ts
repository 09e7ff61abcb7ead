/**
 * Starting points for EM: a seeded k-means++ initialisation for a cold fit, k-means seeded without randomness
 * (farthest points, or quantiles of the first column) for a cold start that does not depend on a seed, and
 * seeded perturbations of a previous model for a warm refit.
 *
 * k-means++ (D. Arthur and S. Vassilvitskii, "k-means++: the advantages of careful seeding", SODA 2007): the
 * first centre uniformly at random, each further centre drawn with probability proportional to the squared
 * distance to the nearest centre chosen so far; then Lloyd's iterations (S. P. Lloyd, IEEE Trans. Inf. Theory
 * 28, 1982) to convergence. Clustering is done on standardised data (each column to mean 0, sd 1) so that a
 * factor with a large scale does not decide the clusters alone; the model is then built in the original units:
 * means and covariances of the clusters, and transitions counted along the cluster sequence with one
 * pseudo-count per entry (Laplace smoothing) so no transition starts at probability 0, which EM could never
 * leave.
 */
import type { Rng } from '../random.js';
import { stationaryDistribution } from './chain.js';
import { floorCovariance } from './linalg.js';
import type { GaussianHmm, Observations } from './model.js';
import type { StartProbMode } from './transition-update.js';

export interface InitSettings {
  covFloor: number;
  tiedCovariance: boolean;
  startProb: StartProbMode;
}

/** Column means and standard deviations of X (sd 1 for a constant column, so standardising is safe). */
export function columnMoments(X: Observations, d: number): { mean: Float64Array; sd: Float64Array } {
  const T = X.length;
  const mean = new Float64Array(d);
  const sd = new Float64Array(d);
  for (const row of X) for (let j = 0; j < d; j++) mean[j] = mean[j]! + row[j]! / T;
  for (const row of X) for (let j = 0; j < d; j++) sd[j] = sd[j]! + (row[j]! - mean[j]!) ** 2 / T;
  for (let j = 0; j < d; j++) sd[j] = sd[j]! > 0 ? Math.sqrt(sd[j]!) : 1;
  return { mean, sd };
}

function squaredDistance(a: ArrayLike<number>, b: ArrayLike<number>, d: number): number {
  let s = 0;
  for (let j = 0; j < d; j++) s += (a[j]! - b[j]!) ** 2;
  return s;
}

/** k-means++ seeding (Arthur and Vassilvitskii): K centres drawn from the rows of Z. */
export function kmeansPlusPlusCentres(Z: readonly Float64Array[], K: number, rng: Rng): Float64Array[] {
  const T = Z.length;
  const d = Z[0]!.length;
  const centres: Float64Array[] = [Float64Array.from(Z[rng.int(T)]!)];
  const nearest = Float64Array.from(Z, (z) => squaredDistance(z, centres[0]!, d));
  while (centres.length < K) {
    let total = 0;
    for (let t = 0; t < T; t++) total += nearest[t]!;
    let pick = rng.int(T);
    if (total > 0) {
      // Inverse-CDF draw proportional to D(x)²; `pick` stays the last positive-weight row if rounding runs out.
      let target = rng.uniform() * total;
      for (let t = 0; t < T; t++) {
        if (nearest[t]! <= 0) continue;
        pick = t;
        target -= nearest[t]!;
        if (target < 0) break;
      }
    }
    const centre = Float64Array.from(Z[pick]!);
    centres.push(centre);
    for (let t = 0; t < T; t++) nearest[t] = Math.min(nearest[t]!, squaredDistance(Z[t]!, centre, d));
  }
  return centres;
}

/**
 * Deterministic seeding by farthest points (T. F. Gonzalez, "Clustering to minimize the maximum intercluster
 * distance", Theor. Comput. Sci. 38, 1985, on top of k-means as in I. Katsavounidis, C.-C. J. Kuo and Z. Zhang,
 * IEEE Signal Process. Lett. 1, 1994): the first centre is the row farthest from the column means, each further
 * centre the row farthest from the centres chosen so far; ties go to the earlier row. No randomness.
 */
export function farthestPointCentres(Z: readonly Float64Array[], K: number): Float64Array[] {
  const T = Z.length;
  const d = Z[0]!.length;
  const mean = new Float64Array(d);
  for (const z of Z) for (let j = 0; j < d; j++) mean[j] = mean[j]! + z[j]! / T;
  const nearest = Float64Array.from(Z, (z) => squaredDistance(z, mean, d));
  const centres: Float64Array[] = [];
  while (centres.length < K) {
    let pick = 0;
    for (let t = 1; t < T; t++) if (nearest[t]! > nearest[pick]!) pick = t;
    const centre = Float64Array.from(Z[pick]!);
    centres.push(centre);
    for (let t = 0; t < T; t++)
      nearest[t] = centres.length === 1 ? squaredDistance(Z[t]!, centre, d) : Math.min(nearest[t]!, squaredDistance(Z[t]!, centre, d));
  }
  return centres;
}

/**
 * Deterministic seeding by quantiles of the first column: the rows sorted by it (ties by row) and cut into K
 * groups of equal size, each group's mean a centre. On PCA factors the first column is the first factor.
 */
export function quantileCentres(Z: readonly Float64Array[], K: number): Float64Array[] {
  const T = Z.length;
  const d = Z[0]!.length;
  const order = Array.from({ length: T }, (_, t) => t).sort((a, b) => Z[a]![0]! - Z[b]![0]! || a - b);
  return Array.from({ length: K }, (_, k) => {
    const from = Math.floor((k * T) / K);
    const to = Math.floor(((k + 1) * T) / K);
    const c = new Float64Array(d);
    for (let i = from; i < to; i++) for (let j = 0; j < d; j++) c[j] = c[j]! + Z[order[i]!]![j]! / Math.max(1, to - from);
    return c;
  });
}

/** k-means++ seeding followed by Lloyd's iterations; returns the cluster of each row. */
export function kmeans(Z: readonly Float64Array[], K: number, rng: Rng, maxIter = 100): Int32Array {
  return lloyd(Z, kmeansPlusPlusCentres(Z, K, rng), maxIter);
}

/** Lloyd's iterations from the given centres (which it moves); returns the cluster of each row. */
export function lloyd(Z: readonly Float64Array[], centres: Float64Array[], maxIter = 100, unrolled = true): Int32Array {
  const T = Z.length;
  const d = Z[0]!.length;
  const K = centres.length;
  const labels = new Int32Array(T).fill(-1);
  const flat = d === 4 && unrolled ? flatRows(Z, d) : null;
  for (let iter = 0; iter < maxIter; iter++) {
    const changed = flat ? assign4(flat, centres, labels) : assign(Z, centres, labels, d);
    if (!changed) break;
    const counts = new Float64Array(K);
    for (const c of centres) c.fill(0);
    if (flat) sumRows4(flat, labels, centres, counts);
    for (let t = 0; t < (flat ? 0 : T); t++) {
      const k = labels[t]!;
      counts[k] = counts[k]! + 1;
      for (let j = 0; j < d; j++) centres[k]![j] = centres[k]![j]! + Z[t]![j]!;
    }
    for (let k = 0; k < K; k++) {
      if (counts[k]! > 0) {
        for (let j = 0; j < d; j++) centres[k]![j] = centres[k]![j]! / counts[k]!;
      } else {
        // An empty cluster takes the row farthest from its centre, so K clusters survive.
        let far = 0;
        let farDistance = -1;
        for (let t = 0; t < T; t++) {
          const dist = squaredDistance(Z[t]!, centres[labels[t]!]!, d);
          if (dist > farDistance) {
            farDistance = dist;
            far = t;
          }
        }
        centres[k]!.set(Z[far]!);
      }
    }
  }
  return labels;
}

/** Lloyd's assignment step: each row to its nearest centre (ties to the lower). Returns whether a label changed. */
function assign(Z: readonly Float64Array[], centres: readonly Float64Array[], labels: Int32Array, d: number): boolean {
  let changed = false;
  for (let t = 0; t < Z.length; t++) {
    let best = 0;
    let bestDistance = Infinity;
    for (let k = 0; k < centres.length; k++) {
      const dist = squaredDistance(Z[t]!, centres[k]!, d);
      if (dist < bestDistance) {
        bestDistance = dist;
        best = k;
      }
    }
    if (labels[t] !== best) {
      labels[t] = best;
      changed = true;
    }
  }
  return changed;
}

const flatRows = (Z: readonly Float64Array[], d: number): Float64Array => {
  const flat = new Float64Array(Z.length * d);
  Z.forEach((z, t) => flat.set(z, t * d));
  return flat;
};

/**
 * Lloyd's assignment step for d = 4, the regime model's, where it is most of a start's time: each row to its
 * nearest centre (ties to the lower), the distances written out. The same operations in the same order as
 * `assign`'s, so the same labels (init.test.ts compares the two).
 */
function assign4(Z: Float64Array, centres: readonly Float64Array[], labels: Int32Array): boolean {
  const K = centres.length;
  const C = new Float64Array(K * 4);
  centres.forEach((c, k) => C.set(c.subarray(0, 4), k * 4));
  let changed = false;
  for (let t = 0; t < labels.length; t++) {
    const o = t * 4;
    const z0 = Z[o]!,
      z1 = Z[o + 1]!,
      z2 = Z[o + 2]!,
      z3 = Z[o + 3]!;
    let best = 0;
    let bestDistance = Infinity;
    for (let k = 0; k < K; k++) {
      const c = k * 4;
      const d0 = z0 - C[c]!,
        d1 = z1 - C[c + 1]!,
        d2 = z2 - C[c + 2]!,
        d3 = z3 - C[c + 3]!;
      const dist = d0 * d0 + d1 * d1 + d2 * d2 + d3 * d3;
      if (dist < bestDistance) {
        bestDistance = dist;
        best = k;
      }
    }
    if (labels[t] !== best) {
      labels[t] = best;
      changed = true;
    }
  }
  return changed;
}

/** Lloyd's update step for d = 4: each cluster's row count and the sum of its rows, in row order as the general loop. */
function sumRows4(Z: Float64Array, labels: Int32Array, centres: Float64Array[], counts: Float64Array): void {
  const K = centres.length;
  const S = new Float64Array(K * 4);
  for (let t = 0; t < labels.length; t++) {
    const k = labels[t]!;
    const o = t * 4;
    const c = k * 4;
    counts[k] = counts[k]! + 1;
    S[c] = S[c]! + Z[o]!;
    S[c + 1] = S[c + 1]! + Z[o + 1]!;
    S[c + 2] = S[c + 2]! + Z[o + 2]!;
    S[c + 3] = S[c + 3]! + Z[o + 3]!;
  }
  centres.forEach((centre, k) => centre.set(S.subarray(k * 4, k * 4 + 4)));
}

/** Mean, covariance (divided by n) and count n of the rows of X selected by `member` (zeros when n = 0). */
function moments(X: Observations, d: number, member: (t: number) => boolean): { mean: Float64Array; cov: Float64Array; n: number } {
  const mean = new Float64Array(d);
  const cov = new Float64Array(d * d);
  let n = 0;
  for (let t = 0; t < X.length; t++) {
    if (!member(t)) continue;
    n++;
    for (let j = 0; j < d; j++) mean[j] = mean[j]! + X[t]![j]!;
  }
  if (n === 0) return { mean, cov, n };
  for (let j = 0; j < d; j++) mean[j] = mean[j]! / n;
  for (let t = 0; t < X.length; t++) {
    if (!member(t)) continue;
    for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) cov[i * d + j] = cov[i * d + j]! + ((X[t]![i]! - mean[i]!) * (X[t]![j]! - mean[j]!)) / n;
  }
  return { mean, cov, n };
}

/** How a cold start places its first k-means centres: seeded k-means++, or one of the deterministic seedings. */
export type ColdSeeding = 'kmeans++' | 'farthest' | 'quantile';

/** A cold-start model from a seeded k-means++ clustering of X. */
export function kmeansModel(X: Observations, K: number, rng: Rng, settings: InitSettings): GaussianHmm {
  return clusterModel(X, K, settings, (Z) => kmeansPlusPlusCentres(Z, K, rng));
}

/** A cold-start model from a k-means clustering of X seeded without randomness (`farthest` or `quantile`). */
export function deterministicKmeansModel(X: Observations, K: number, seeding: Exclude<ColdSeeding, 'kmeans++'>, settings: InitSettings): GaussianHmm {
  return clusterModel(X, K, settings, (Z) => (seeding === 'farthest' ? farthestPointCentres(Z, K) : quantileCentres(Z, K)));
}

/** The model of a k-means clustering of standardised X whose first centres `seed` places. */
function clusterModel(X: Observations, K: number, settings: InitSettings, seed: (Z: Float64Array[]) => Float64Array[]): GaussianHmm {
  const d = X[0]!.length;
  const { mean, sd } = columnMoments(X, d);
  const Z = X.map((row) => Float64Array.from({ length: d }, (_, j) => (row[j]! - mean[j]!) / sd[j]!));
  const labels = lloyd(Z, seed(Z));
  const global = moments(X, d, () => true);
  const pooled = new Float64Array(d * d);
  const means: Float64Array[] = [];
  const covars: Float64Array[] = [];
  for (let k = 0; k < K; k++) {
    const cluster = moments(X, d, (t) => labels[t] === k);
    means.push(cluster.n > 0 ? cluster.mean : Float64Array.from(global.mean));
    // A cluster with too few rows for a full covariance borrows the global one.
    covars.push(cluster.n > d ? cluster.cov : Float64Array.from(global.cov));
    for (let i = 0; i < d * d; i++) pooled[i] = pooled[i]! + (cluster.cov[i]! * cluster.n) / X.length;
  }
  const floored = (c: Float64Array): Float64Array => floorCovariance(c, d, settings.covFloor);
  const transmat = new Float64Array(K * K).fill(1);
  for (let t = 0; t + 1 < labels.length; t++) transmat[labels[t]! * K + labels[t + 1]!] = transmat[labels[t]! * K + labels[t + 1]!]! + 1;
  normaliseRows(transmat, K);
  return {
    K,
    d,
    startProb: settings.startProb === 'stationary' ? stationaryDistribution(transmat) : new Float64Array(K).fill(1 / K),
    transmat,
    means,
    covars: settings.tiedCovariance ? covars.map(() => floored(pooled)) : covars.map(floored),
  };
}

function normaliseRows(a: Float64Array, K: number): void {
  for (let i = 0; i < K; i++) {
    let s = 0;
    for (let j = 0; j < K; j++) s += a[i * K + j]!;
    for (let j = 0; j < K; j++) a[i * K + j] = a[i * K + j]! / s;
  }
}

/**
 * A seeded perturbation of a previous model, for the extra restarts of a warm fit: each mean moves by
 * `scale` × (the column's sd) × N(0, 1) per coordinate, and each transition row (and the start distribution)
 * is mixed 90/10 with a random distribution. Covariances are kept: they are the slowest part of a fit to move
 * and the least likely to be in the wrong basin.
 */
export function perturbModel(model: GaussianHmm, X: Observations, rng: Rng, settings: InitSettings, scale = 0.25): GaussianHmm {
  const { K, d } = model;
  const { sd } = columnMoments(X, d);
  const means = model.means.map((m) => Float64Array.from(m, (v, j) => v + scale * sd[j]! * rng.normal()));
  const transmat = new Float64Array(K * K);
  for (let i = 0; i < K; i++) {
    const noise = Float64Array.from({ length: K }, () => rng.uniform() + 1e-3);
    const total = noise.reduce((s, v) => s + v, 0);
    for (let j = 0; j < K; j++) transmat[i * K + j] = 0.9 * model.transmat[i * K + j]! + (0.1 * noise[j]!) / total;
  }
  normaliseRows(transmat, K);
  const startProb = settings.startProb === 'stationary' ? stationaryDistribution(transmat) : Float64Array.from(model.startProb, (p) => 0.9 * p + 0.1 / K);
  return { K, d, startProb, transmat, means, covars: model.covars.map((c) => Float64Array.from(c)) };
}
