/**
 * pipeline/hmm/init.ts: k-means++ finds well-separated clusters whatever their scale, is reproducible for a
 * seed, and the models built from it (cold start) or around a previous model (warm restarts) are valid; the
 * deterministic seedings (farthest point, quantiles of the first column) take no randomness at all.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../../pipeline/random.js';
import { stationaryDistribution } from '../../../pipeline/hmm/chain.js';
import { deterministicKmeansModel, farthestPointCentres, kmeans, kmeansModel, lloyd, perturbModel, quantileCentres } from '../../../pipeline/hmm/init.js';
import { symmetricEigen } from '../../../pipeline/hmm/linalg.js';
import { validateModel } from '../../../pipeline/hmm/model.js';
import { regimeLikeModel, sampleHmm } from './synthetic.js';

/** Three tight clusters in 2-D, one of them on a column scaled by 1,000. */
function clusters(seed: number): { X: Float64Array[]; truth: number[] } {
  const rng = createRng(seed);
  const centres = [
    [0, 0],
    [10, 0],
    [0, 10_000],
  ];
  const X: Float64Array[] = [];
  const truth: number[] = [];
  for (let n = 0; n < 300; n++) {
    const k = n % 3;
    X.push(Float64Array.of(centres[k]![0]! + 0.3 * rng.normal(), centres[k]![1]! + 300 * rng.normal()));
    truth.push(k);
  }
  return { X, truth };
}

const settings = { covFloor: 1e-4, tiedCovariance: false, startProb: 'estimate' } as const;

describe('kmeans', () => {
  it('separates well-separated clusters (labels agree with the truth up to renaming)', () => {
    const rng = createRng(1);
    const X = Array.from({ length: 300 }, (_, n) => Float64Array.of(5 * (n % 3) + 0.3 * rng.normal(), 5 * (n % 2) + 0.3 * rng.normal()));
    const truth = X.map((_, n) => (n % 3) * 2 + (n % 2));
    const labels = kmeans(X, 6, createRng(2));
    const naming = new Map<number, number>();
    truth.forEach((k, n) => {
      if (!naming.has(k)) naming.set(k, labels[n]!);
      expect(labels[n]).toBe(naming.get(k));
    });
    expect(new Set(naming.values()).size).toBe(6);
  });

  it('is reproducible for a seed', () => {
    const { X } = clusters(3);
    expect(kmeans(X, 3, createRng(9))).toEqual(kmeans(X, 3, createRng(9)));
  });

  it('gives K non-empty clusters even when rows repeat', () => {
    const X = [...Array.from({ length: 20 }, () => Float64Array.of(0)), Float64Array.of(1), Float64Array.of(2)];
    const labels = kmeans(X, 3, createRng(1));
    expect(new Set(labels).size).toBe(3);
  });
});

describe('kmeansModel', () => {
  const truth = regimeLikeModel(3);

  it('clusters standardised data, so a column on a scale 1,000 times larger does not decide alone', () => {
    const { X } = clusters(1);
    const m = kmeansModel(X, 3, createRng(2), settings);
    // `|| 0` turns the −0 of rounding a small negative into 0.
    const found = m.means.map((mean) => [Math.round(mean[0]! / 10) * 10 || 0, Math.round(mean[1]! / 10_000) * 10_000 || 0]);
    expect(found.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!)).toEqual([
      [0, 0],
      [0, 10_000],
      [10, 0],
    ]);
  });

  const { X } = sampleHmm(truth, 1500, 11);

  it('builds a valid model, with the covariance floor applied', () => {
    const m = kmeansModel(X, 4, createRng(1), { ...settings, covFloor: 0.5 });
    expect(() => validateModel(m)).not.toThrow();
    for (const c of m.covars) expect(symmetricEigen(c, 3).values[0]!).toBeGreaterThanOrEqual(0.5 - 1e-12);
    expect(Array.from(m.startProb)).toEqual([0.25, 0.25, 0.25, 0.25]);
  });

  it('shares one covariance when tied, and starts from the stationary distribution when asked', () => {
    const m = kmeansModel(X, 4, createRng(1), { covFloor: 1e-4, tiedCovariance: true, startProb: 'stationary' });
    for (const c of m.covars) expect(c).toEqual(m.covars[0]);
    expect(m.startProb).toEqual(stationaryDistribution(m.transmat));
  });

  it('counts transitions along the clusters: persistent data give the largest entry of each row on the diagonal', () => {
    const m = kmeansModel(X, 4, createRng(1), settings);
    for (let k = 0; k < 4; k++) {
      expect(m.transmat[k * 4 + k]!).toBeGreaterThan(0.5);
      for (let l = 0; l < 4; l++) if (l !== k) expect(m.transmat[k * 4 + l]!).toBeLessThan(m.transmat[k * 4 + k]!);
    }
  });
});

describe('deterministic seedings', () => {
  // Six well-separated clusters in 2-D, in a shuffled order of rows.
  const rng = createRng(4);
  const X = Array.from({ length: 300 }, (_, n) => Float64Array.of(5 * (n % 3) + 0.3 * rng.normal(), 5 * (n % 2) + 0.3 * rng.normal()));
  const truth = X.map((_, n) => (n % 3) * 2 + (n % 2));

  it.each(['farthest', 'quantile'] as const)('%s: separates well-separated clusters, from the data alone', (seeding) => {
    const labels = lloyd(X, seeding === 'farthest' ? farthestPointCentres(X, 6) : quantileCentres(X, 6));
    const naming = new Map<number, number>();
    truth.forEach((k, n) => {
      if (!naming.has(k)) naming.set(k, labels[n]!);
      expect(labels[n]).toBe(naming.get(k));
    });
    expect(new Set(naming.values()).size).toBe(6);
  });

  it('farthest: starts from the row farthest from the mean, then from the row farthest from every centre so far', () => {
    const rows = [Float64Array.of(0), Float64Array.of(1), Float64Array.of(2), Float64Array.of(10), Float64Array.of(3)];
    // The mean is 3.2, so 10 comes first; then 0 (10 away from it); then 3, which is 3 from its nearest centre (2 is 2 away, 1 is 1).
    expect(farthestPointCentres(rows, 3).map((c) => c[0])).toEqual([10, 0, 3]);
  });

  it('quantile: the means of equal groups of rows sorted by the first column', () => {
    const rows = [5, 1, 4, 2, 3, 6].map((v) => Float64Array.of(v, -v));
    expect(quantileCentres(rows, 3).map((c) => Array.from(c))).toEqual([
      [1.5, -1.5],
      [3.5, -3.5],
      [5.5, -5.5],
    ]);
  });

  it('deterministicKmeansModel: a valid model, the same for the same data, with no generator involved', () => {
    const { X: Y } = sampleHmm(regimeLikeModel(3), 1500, 11);
    for (const seeding of ['farthest', 'quantile'] as const) {
      const m = deterministicKmeansModel(Y, 4, seeding, settings);
      expect(() => validateModel(m)).not.toThrow();
      expect(deterministicKmeansModel(Y, 4, seeding, settings)).toEqual(m);
    }
  });
});

describe('lloyd for d = 4', () => {
  it("the written-out steps give the general loops' labels and centres, bit for bit, an emptied cluster included", () => {
    const { X } = sampleHmm(regimeLikeModel(4), 2268, 13);
    for (const seeding of ['farthest', 'quantile'] as const) {
      const seedCentres = (): Float64Array[] => (seeding === 'farthest' ? farthestPointCentres(X, 4) : quantileCentres(X, 4));
      const a = seedCentres();
      const b = seedCentres();
      const unrolled = lloyd(X, a);
      const general = lloyd(X, b, 100, false);
      expect(Array.from(unrolled)).toEqual(Array.from(general));
      a.forEach((c, k) => c.forEach((v, j) => expect(Object.is(v, b[k]![j])).toBe(true)));
      expect(new Set(unrolled).size).toBe(4);
    }
    // A centre far from every row loses all of them on the first step and takes the row farthest from its centre.
    const far = (): Float64Array[] => [...farthestPointCentres(X, 3), Float64Array.of(1e6, 1e6, 1e6, 1e6)];
    const c1 = far();
    const c2 = far();
    expect(Array.from(lloyd(X, c1))).toEqual(Array.from(lloyd(X, c2, 100, false)));
    c1.forEach((c, k) => c.forEach((v, j) => expect(Object.is(v, c2[k]![j])).toBe(true)));
    expect(c1[3]![0]).toBeLessThan(1e3);
  });
});

describe('perturbModel', () => {
  const truth = regimeLikeModel(3);
  const { X } = sampleHmm(truth, 500, 12);

  it('is reproducible, valid, moves the means and the transitions, keeps the covariances', () => {
    const a = perturbModel(truth, X, createRng(5), settings);
    const b = perturbModel(truth, X, createRng(5), settings);
    expect(a).toEqual(b);
    expect(() => validateModel(a)).not.toThrow();
    expect(a.means).not.toEqual(truth.means);
    expect(a.transmat).not.toEqual(truth.transmat);
    expect(a.covars).toEqual(truth.covars);
    expect(perturbModel(truth, X, createRng(6), settings).means).not.toEqual(a.means);
  });
});
