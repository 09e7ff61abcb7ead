/**
 * Dense linear algebra for the small matrices of the regime model: full covariance matrices of dimension
 * d ≤ 8 (the factors) and K × K transition matrices. Matrices are `Float64Array`s in row-major order, a_ij at
 * index i·n + j; functions take the dimension explicitly and check the length at the edge.
 *
 * Algorithms (G. H. Golub and C. F. Van Loan, "Matrix Computations", 4th ed., 2013):
 * - Cholesky A = L Lᵀ, the row-oriented (Cholesky–Banachiewicz) form of Alg. 4.2.1; it fails, with the pivot
 *   named, exactly when A is not (numerically) positive definite.
 * - log det A = 2 Σ log L_ii, which never forms det A (that would overflow or underflow for d = 8).
 * - Triangular solves (§3.1) for A x = b and for the Mahalanobis distance (x − μ)ᵀ A⁻¹ (x − μ) = ‖L⁻¹(x − μ)‖².
 * - Gaussian elimination with partial pivoting (§3.4) for general square systems (stationary distributions).
 * - The cyclic Jacobi eigenvalue algorithm (§8.5.2–8.5.3) for symmetric matrices: simple, accurate to working
 *   precision, and for d ≤ 8 as fast as anything else.
 *
 * Covariance floor: `floorCovariance` raises every eigenvalue below `floor` to `floor`, keeping the
 * eigenvectors: Σ' = V max(Λ, floor) Vᵀ. Unlike adding floor × I (scikit-learn's `reg_covar`), this leaves a
 * well-conditioned covariance untouched, so a floor does not bias the estimates, and it is the exact maximiser
 * of the Gaussian likelihood over covariances whose eigenvalues are ≥ floor, so EM with the floor still never
 * decreases the likelihood.
 */
import { HmmError, invalidArgument } from './errors.js';

function checkSquare(name: string, a: ArrayLike<number>, n: number): void {
  if (!Number.isInteger(n) || n < 1) throw invalidArgument('n', `expected a positive integer dimension, got ${n}`);
  if (a.length !== n * n) throw invalidArgument(name, `expected ${n}×${n} = ${n * n} entries, got ${a.length}`);
}

function checkVector(name: string, b: ArrayLike<number>, n: number): void {
  if (b.length !== n) throw invalidArgument(name, `expected ${n} entries, got ${b.length}`);
}

/**
 * The lower-triangular Cholesky factor L of a symmetric positive definite A (only the lower triangle of A is
 * read). Throws `hmm_not_positive_definite`, naming the failing pivot, when A is not positive definite.
 */
export function cholesky(a: ArrayLike<number>, d: number): Float64Array {
  checkSquare('a', a, d);
  const l = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = a[i * d + j]!;
      for (let k = 0; k < j; k++) sum -= l[i * d + k]! * l[j * d + k]!;
      if (i === j) {
        // `!(sum > 0)` also catches NaN.
        if (!(sum > 0)) {
          throw new HmmError('hmm_not_positive_definite', `a: not positive definite (pivot ${i} is ${sum})`);
        }
        l[i * d + i] = Math.sqrt(sum);
      } else {
        l[i * d + j] = sum / l[j * d + j]!;
      }
    }
  }
  return l;
}

/** log det A from the Cholesky factor of A: 2 Σ log L_ii. */
export function logDetFromCholesky(l: ArrayLike<number>, d: number): number {
  checkSquare('l', l, d);
  let sum = 0;
  for (let i = 0; i < d; i++) sum += Math.log(l[i * d + i]!);
  return 2 * sum;
}

/** log det A of a symmetric positive definite A. */
export function logDet(a: ArrayLike<number>, d: number): number {
  return logDetFromCholesky(cholesky(a, d), d);
}

/** Solves L y = b for lower-triangular L (forward substitution). */
export function forwardSubstitute(l: ArrayLike<number>, d: number, b: ArrayLike<number>): Float64Array {
  checkSquare('l', l, d);
  checkVector('b', b, d);
  const y = new Float64Array(d);
  for (let i = 0; i < d; i++) {
    let sum = b[i]!;
    for (let k = 0; k < i; k++) sum -= l[i * d + k]! * y[k]!;
    y[i] = sum / l[i * d + i]!;
  }
  return y;
}

/** Solves A x = b given the Cholesky factor L of A: L y = b, then Lᵀ x = y. */
export function solveCholesky(l: ArrayLike<number>, d: number, b: ArrayLike<number>): Float64Array {
  const x = forwardSubstitute(l, d, b);
  for (let i = d - 1; i >= 0; i--) {
    let sum = x[i]!;
    for (let k = i + 1; k < d; k++) sum -= l[k * d + i]! * x[k]!;
    x[i] = sum / l[i * d + i]!;
  }
  return x;
}

/** Solves A x = b for a symmetric positive definite A. */
export function solveSpd(a: ArrayLike<number>, d: number, b: ArrayLike<number>): Float64Array {
  return solveCholesky(cholesky(a, d), d, b);
}

/**
 * The squared Mahalanobis distance (x − μ)ᵀ Σ⁻¹ (x − μ), given the Cholesky factor L of Σ. `scratch` (length
 * ≥ d) avoids an allocation in hot loops; its contents are overwritten.
 */
export function mahalanobisSquared(
  l: ArrayLike<number>,
  d: number,
  x: ArrayLike<number>,
  mean: ArrayLike<number>,
  scratch: Float64Array = new Float64Array(d),
): number {
  let total = 0;
  for (let i = 0; i < d; i++) {
    let sum = x[i]! - mean[i]!;
    for (let k = 0; k < i; k++) sum -= l[i * d + k]! * scratch[k]!;
    const z = sum / l[i * d + i]!;
    scratch[i] = z;
    total += z * z;
  }
  return total;
}

/**
 * Solves A x = b for a general square A by Gaussian elimination with partial pivoting. Throws
 * `hmm_singular_matrix` when a pivot is zero (relative to the largest entry of A).
 */
export function solveLinear(a: ArrayLike<number>, n: number, b: ArrayLike<number>): Float64Array {
  checkSquare('a', a, n);
  checkVector('b', b, n);
  const m = Float64Array.from(a);
  const x = Float64Array.from(b);
  let scale = 0;
  for (let i = 0; i < n * n; i++) scale = Math.max(scale, Math.abs(m[i]!));
  const tiny = scale * n * Number.EPSILON;
  for (let col = 0; col < n; col++) {
    let pivotRow = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r * n + col]!) > Math.abs(m[pivotRow * n + col]!)) pivotRow = r;
    const pivot = m[pivotRow * n + col]!;
    if (!(Math.abs(pivot) > tiny)) throw new HmmError('hmm_singular_matrix', `a: singular (no pivot in column ${col})`);
    if (pivotRow !== col) {
      for (let c = 0; c < n; c++) {
        const tmp = m[col * n + c]!;
        m[col * n + c] = m[pivotRow * n + c]!;
        m[pivotRow * n + c] = tmp;
      }
      const tb = x[col]!;
      x[col] = x[pivotRow]!;
      x[pivotRow] = tb;
    }
    for (let r = col + 1; r < n; r++) {
      const factor = m[r * n + col]! / pivot;
      if (factor === 0) continue;
      for (let c = col; c < n; c++) m[r * n + c] = m[r * n + c]! - factor * m[col * n + c]!;
      x[r] = x[r]! - factor * x[col]!;
    }
  }
  for (let i = n - 1; i >= 0; i--) {
    let sum = x[i]!;
    for (let c = i + 1; c < n; c++) sum -= m[i * n + c]! * x[c]!;
    x[i] = sum / m[i * n + i]!;
  }
  return x;
}

export interface SymmetricEigen {
  /** Eigenvalues, ascending. */
  values: Float64Array;
  /** Eigenvectors as columns, row-major: vectors[i·d + k] is component i of the eigenvector of values[k]. */
  vectors: Float64Array;
}

/**
 * Eigenvalues and eigenvectors of a symmetric matrix by the cyclic Jacobi method: sweeps of plane rotations
 * annihilating each off-diagonal entry in turn, until the off-diagonal mass is negligible.
 */
export function symmetricEigen(a: ArrayLike<number>, d: number): SymmetricEigen {
  checkSquare('a', a, d);
  const m = Float64Array.from(a);
  const v = new Float64Array(d * d);
  for (let i = 0; i < d; i++) v[i * d + i] = 1;
  let frobenius = 0;
  for (let i = 0; i < d * d; i++) frobenius += m[i]! * m[i]!;
  // Quadratic convergence: a handful of sweeps for d ≤ 8; the cap only guards against a NaN input.
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    for (let p = 0; p < d; p++) for (let q = p + 1; q < d; q++) off += m[p * d + q]! * m[p * d + q]!;
    if (off <= Number.EPSILON * Number.EPSILON * frobenius) break;
    for (let p = 0; p < d; p++) {
      for (let q = p + 1; q < d; q++) {
        const apq = m[p * d + q]!;
        if (apq === 0) continue;
        // The rotation (c, s) that zeroes a_pq (Golub & Van Loan Alg. 8.5.1, the smaller root for stability).
        const theta = (m[q * d + q]! - m[p * d + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < d; k++) {
          const mkp = m[k * d + p]!;
          const mkq = m[k * d + q]!;
          m[k * d + p] = c * mkp - s * mkq;
          m[k * d + q] = s * mkp + c * mkq;
        }
        for (let k = 0; k < d; k++) {
          const mpk = m[p * d + k]!;
          const mqk = m[q * d + k]!;
          m[p * d + k] = c * mpk - s * mqk;
          m[q * d + k] = s * mpk + c * mqk;
        }
        for (let k = 0; k < d; k++) {
          const vkp = v[k * d + p]!;
          const vkq = v[k * d + q]!;
          v[k * d + p] = c * vkp - s * vkq;
          v[k * d + q] = s * vkp + c * vkq;
        }
        // Exactly zero in exact arithmetic; set it so rounding residue does not keep the sweeps going.
        m[p * d + q] = 0;
        m[q * d + p] = 0;
      }
    }
  }
  const order = Array.from({ length: d }, (_, i) => i).sort((i, j) => m[i * d + i]! - m[j * d + j]!);
  const values = new Float64Array(d);
  const vectors = new Float64Array(d * d);
  order.forEach((src, k) => {
    values[k] = m[src * d + src]!;
    for (let i = 0; i < d; i++) vectors[i * d + k] = v[i * d + src]!;
  });
  return { values, vectors };
}

/**
 * The covariance floor: every eigenvalue of the symmetric `cov` below `floor` is raised to `floor`, the
 * eigenvectors kept (see the module comment for why an eigenvalue floor rather than adding floor × I).
 * Returns a new, exactly symmetric matrix; when all eigenvalues are already ≥ floor it is a copy of `cov`.
 */
export function floorCovariance(cov: ArrayLike<number>, d: number, floor: number): Float64Array {
  checkSquare('cov', cov, d);
  if (!(floor >= 0) || !Number.isFinite(floor)) throw invalidArgument('floor', `expected a finite number ≥ 0, got ${floor}`);
  const out = Float64Array.from(cov);
  // Symmetrise: sums of outer products are symmetric in exact arithmetic, not always in floating point.
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < i; j++) {
      const mean = (out[i * d + j]! + out[j * d + i]!) / 2;
      out[i * d + j] = mean;
      out[j * d + i] = mean;
    }
  }
  // Fast path: Σ − floor·I positive definite ⇔ every eigenvalue > floor, so nothing to do.
  const shifted = Float64Array.from(out);
  for (let i = 0; i < d; i++) shifted[i * d + i] = shifted[i * d + i]! - floor;
  try {
    cholesky(shifted, d);
    return out;
  } catch (error) {
    if (!(error instanceof HmmError)) throw error;
  }
  const { values, vectors } = symmetricEigen(out, d);
  const clipped = values.map((value) => Math.max(value, floor));
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = 0;
      for (let k = 0; k < d; k++) sum += vectors[i * d + k]! * clipped[k]! * vectors[j * d + k]!;
      out[i * d + j] = sum;
      out[j * d + i] = sum;
    }
  }
  return out;
}
