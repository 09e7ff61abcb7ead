/**
 * pipeline/hmm/linalg.ts, table-driven: factors and solutions worked by hand for small matrices, identities
 * that must hold for random SPD matrices (L Lᵀ = A, A x = b, A V = V Λ), and the failure of each function on
 * bad input.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../../pipeline/random.js';
import { HmmError } from '../../../pipeline/hmm/errors.js';
import {
  cholesky,
  floorCovariance,
  forwardSubstitute,
  logDet,
  logDetFromCholesky,
  mahalanobisSquared,
  solveCholesky,
  solveLinear,
  solveSpd,
  symmetricEigen,
} from '../../../pipeline/hmm/linalg.js';

const f64 = (...v: number[]): Float64Array => Float64Array.from(v);

function matmul(a: ArrayLike<number>, b: ArrayLike<number>, n: number): Float64Array {
  const c = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) for (let k = 0; k < n; k++) c[i * n + j] = c[i * n + j]! + a[i * n + k]! * b[k * n + j]!;
  return c;
}
function transpose(a: ArrayLike<number>, n: number): Float64Array {
  const t = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) t[j * n + i] = a[i * n + j]!;
  return t;
}
function matvec(a: ArrayLike<number>, x: ArrayLike<number>, n: number): Float64Array {
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) for (let k = 0; k < n; k++) y[i] = y[i]! + a[i * n + k]! * x[k]!;
  return y;
}
/** A random SPD matrix B Bᵀ + n I of dimension n, seeded. */
function randomSpd(n: number, seed: number): Float64Array {
  const rng = createRng(seed);
  const b = Float64Array.from({ length: n * n }, () => rng.normal());
  const a = matmul(b, transpose(b, n), n);
  for (let i = 0; i < n; i++) a[i * n + i] = a[i * n + i]! + n;
  return a;
}
function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol: number): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) expect(Math.abs(actual[i]! - expected[i]!)).toBeLessThanOrEqual(tol);
}

describe('cholesky', () => {
  it.each([
    { name: '1×1', a: f64(9), d: 1, l: f64(3) },
    { name: 'diagonal', a: f64(4, 0, 0, 9), d: 2, l: f64(2, 0, 0, 3) },
    { name: '2×2 by hand', a: f64(4, 2, 2, 5), d: 2, l: f64(2, 0, 1, 2) },
    // The classic example: [[4,12,−16],[12,37,−43],[−16,−43,98]] = L Lᵀ with L = [[2,0,0],[6,1,0],[−8,5,3]].
    { name: '3×3 classic', a: f64(4, 12, -16, 12, 37, -43, -16, -43, 98), d: 3, l: f64(2, 0, 0, 6, 1, 0, -8, 5, 3) },
  ])('$name', ({ a, d, l }) => {
    expectClose(cholesky(a, d), l, 1e-14);
  });

  it.each([2, 4, 8])('reproduces a random SPD matrix of dimension %i as L Lᵀ', (d) => {
    const a = randomSpd(d, d);
    const l = cholesky(a, d);
    for (let i = 0; i < d; i++) for (let j = i + 1; j < d; j++) expect(l[i * d + j]).toBe(0);
    expectClose(matmul(l, transpose(l, d), d), a, 1e-12 * d * d);
  });

  it.each([
    { name: 'negative diagonal', a: f64(-1), d: 1, pivot: 0 },
    { name: 'zero matrix', a: f64(0, 0, 0, 0), d: 2, pivot: 0 },
    { name: 'indefinite', a: f64(1, 2, 2, 1), d: 2, pivot: 1 },
    { name: 'singular PSD', a: f64(1, 1, 1, 1), d: 2, pivot: 1 },
    { name: 'NaN', a: f64(1, 0, 0, Number.NaN), d: 2, pivot: 1 },
  ])('fails with hmm_not_positive_definite naming the pivot: $name', ({ a, d, pivot }) => {
    let caught: unknown;
    try {
      cholesky(a, d);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(HmmError);
    expect((caught as HmmError).code).toBe('hmm_not_positive_definite');
    expect((caught as HmmError).message).toMatch(new RegExp(`pivot ${pivot}`));
  });

  it('rejects a matrix of the wrong length, naming the argument', () => {
    expect(() => cholesky(f64(1, 2, 3), 2)).toThrow(/a: expected 2×2 = 4 entries, got 3/);
    expect(() => cholesky(f64(1), 0)).toThrow(/n: expected a positive integer/);
  });
});

describe('log-determinant', () => {
  it.each([
    { a: f64(9), d: 1, logdet: Math.log(9) },
    { a: f64(4, 2, 2, 5), d: 2, logdet: Math.log(16) },
    { a: f64(4, 12, -16, 12, 37, -43, -16, -43, 98), d: 3, logdet: Math.log(36) },
    // det = 1e−300 · 1e−300 underflows to 0 as a product; its logarithm does not.
    { a: f64(1e-300, 0, 0, 1e-300), d: 2, logdet: -600 * Math.log(10) },
  ])('log det of $a', ({ a, d, logdet }) => {
    expect(logDet(a, d)).toBeCloseTo(logdet, 10);
    expect(logDetFromCholesky(cholesky(a, d), d)).toBeCloseTo(logdet, 10);
  });
});

describe('solves', () => {
  it.each([
    { a: f64(4, 2, 2, 5), b: f64(2, 1), x: f64(0.5, 0) },
    { a: f64(4, 12, -16, 12, 37, -43, -16, -43, 98), b: f64(4, 12, -16), x: f64(1, 0, 0) },
  ])('solveSpd($a, $b) = $x', ({ a, b, x }) => {
    expectClose(solveSpd(a, Math.sqrt(a.length), b), x, 1e-12);
  });

  it.each([3, 6, 8])('A x = b to rounding for a random SPD A of dimension %i', (d) => {
    const a = randomSpd(d, 100 + d);
    const b = Float64Array.from({ length: d }, (_, i) => i - d / 2);
    const x = solveCholesky(cholesky(a, d), d, b);
    expectClose(matvec(a, x, d), b, 1e-10);
  });

  it('forward substitution solves L y = b', () => {
    expectClose(forwardSubstitute(f64(2, 0, 1, 2), 2, f64(4, 6)), f64(2, 2), 1e-15);
    expect(() => forwardSubstitute(f64(2, 0, 1, 2), 2, f64(4))).toThrow(/b: expected 2 entries, got 1/);
  });

  it.each([
    { name: 'needs pivoting', a: f64(0, 1, 1, 0), b: f64(2, 3), x: f64(3, 2) },
    { name: 'non-symmetric 3×3', a: f64(2, 1, -1, -3, -1, 2, -2, 1, 2), b: f64(8, -11, -3), x: f64(2, 3, -1) },
  ])('solveLinear: $name', ({ a, b, x }) => {
    expectClose(solveLinear(a, Math.sqrt(a.length), b), x, 1e-12);
  });

  it('solveLinear fails with hmm_singular_matrix on a singular matrix', () => {
    expect(() => solveLinear(f64(1, 2, 2, 4), 2, f64(1, 1))).toThrow(expect.objectContaining({ code: 'hmm_singular_matrix' }));
  });
});

describe('Mahalanobis distance', () => {
  it.each([
    { name: 'identity', cov: f64(1, 0, 0, 1), x: f64(3, 4), mean: f64(0, 0), expected: 25 },
    { name: 'scaled', cov: f64(4, 0, 0, 9), x: f64(2, 3), mean: f64(0, 0), expected: 2 },
    { name: 'shifted mean', cov: f64(4, 0, 0, 9), x: f64(3, 4), mean: f64(1, 1), expected: 2 },
    // (x−μ)ᵀ Σ⁻¹ (x−μ) with Σ = [[4,2],[2,5]], Σ⁻¹ = [[5,−2],[−2,4]]/16, x−μ = (1, 1): (5 − 4 + 4)/16.
    { name: 'correlated', cov: f64(4, 2, 2, 5), x: f64(1, 1), mean: f64(0, 0), expected: 5 / 16 },
  ])('$name', ({ cov, x, mean, expected }) => {
    expect(mahalanobisSquared(cholesky(cov, 2), 2, x, mean)).toBeCloseTo(expected, 14);
  });

  it('equals (x − μ)ᵀ A⁻¹ (x − μ) from a solve, for a random 8-dimensional A', () => {
    const d = 8;
    const a = randomSpd(d, 5);
    const x = Float64Array.from({ length: d }, (_, i) => Math.sin(i));
    const mean = Float64Array.from({ length: d }, (_, i) => Math.cos(i));
    const diff = x.map((v, i) => v - mean[i]!);
    const viaSolve = solveSpd(a, d, diff).reduce((s, v, i) => s + v * diff[i]!, 0);
    expect(mahalanobisSquared(cholesky(a, d), d, x, mean, new Float64Array(d))).toBeCloseTo(viaSolve, 12);
  });
});

describe('symmetricEigen', () => {
  it.each([
    { a: f64(2, 0, 0, 1), values: [1, 2] },
    { a: f64(2, 1, 1, 2), values: [1, 3] },
    { a: f64(4, 12, -16, 12, 37, -43, -16, -43, 98), values: null },
  ])('A V = V Λ with ascending eigenvalues for $a', ({ a, values }) => {
    const d = Math.sqrt(a.length);
    const eig = symmetricEigen(a, d);
    if (values) expectClose(eig.values, values, 1e-13);
    for (let k = 1; k < d; k++) expect(eig.values[k]!).toBeGreaterThanOrEqual(eig.values[k - 1]!);
    const av = matmul(a, eig.vectors, d);
    const vl = Float64Array.from({ length: d * d }, (_, i) => eig.vectors[i]! * eig.values[i % d]!);
    expectClose(av, vl, 1e-11);
    expectClose(matmul(transpose(eig.vectors, d), eig.vectors, d), f64(...Array.from({ length: d * d }, (_, i) => (i % (d + 1) === 0 ? 1 : 0))), 1e-13);
  });

  it('agrees with the log-determinant: Σ log λ = log det A', () => {
    const a = randomSpd(8, 11);
    const sumLog = symmetricEigen(a, 8).values.reduce((s, v) => s + Math.log(v), 0);
    expect(sumLog).toBeCloseTo(logDet(a, 8), 10);
  });
});

describe('floorCovariance', () => {
  it('leaves a covariance whose eigenvalues are all above the floor unchanged', () => {
    const a = f64(4, 2, 2, 5);
    expect(floorCovariance(a, 2, 1e-4)).toEqual(a);
  });

  it.each([
    { name: 'singular PSD', cov: f64(1, 1, 1, 1), floor: 0.1, values: [0.1, 2] },
    { name: 'zero matrix', cov: f64(0, 0, 0, 0), floor: 1e-4, values: [1e-4, 1e-4] },
    { name: 'one small direction', cov: f64(1, 0, 0, 1e-8), floor: 1e-4, values: [1e-4, 1] },
    { name: 'slightly negative (rounding)', cov: f64(1, 1, 1, 1 - 1e-15), floor: 1e-6, values: [1e-6, 2] },
  ])('raises eigenvalues below the floor, keeping the eigenvectors: $name', ({ cov, floor, values }) => {
    const out = floorCovariance(cov, 2, floor);
    expectClose(symmetricEigen(out, 2).values, values, 1e-12);
    expect(out[1]).toBe(out[2]);
    expect(() => cholesky(out, 2)).not.toThrow();
    // Same eigenvectors: the floored matrix commutes with the original.
    expectClose(matmul(out, cov, 2), matmul(cov, out, 2), 1e-12);
  });

  it('symmetrises a matrix that is symmetric only up to rounding', () => {
    const out = floorCovariance(f64(2, 1 + 1e-16, 1, 2), 2, 1e-4);
    expect(out[1]).toBe(out[2]);
  });

  it('rejects a negative or non-finite floor', () => {
    expect(() => floorCovariance(f64(1), 1, -1)).toThrow(/floor: expected a finite number ≥ 0/);
    expect(() => floorCovariance(f64(1), 1, Infinity)).toThrow(/floor/);
  });
});
