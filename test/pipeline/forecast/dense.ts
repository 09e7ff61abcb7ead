/**
 * A second, independent implementation for cross-checks: the ARMA(1,1) as a multivariate normal vector with
 * its Toeplitz autocovariance matrix (P. J. Brockwell and R. A. Davis, "Introduction to Time Series and
 * Forecasting", 2nd ed., 2002, Example 3.2.1: γ(0) = σ²(1 + 2φθ + θ²)/(1 − φ²), γ(1) = σ²(φ + θ)(1 + φθ)/(1 − φ²),
 * γ(k) = φ γ(k − 1)), its density by a Cholesky factor, and the best linear predictor of future values
 * with its mean squared error. O(n³): for short series only. Also a seeded simulator of ARMA(1,1) series.
 */
import { createRng } from '../../../pipeline/random.js';
import type { Arma11 } from '../../../pipeline/forecast/model.js';

export function autocovariance(m: Arma11, k: number): number {
  const { phi, theta, sigma2 } = m;
  if (k === 0) return (sigma2 * (1 + 2 * phi * theta + theta * theta)) / (1 - phi * phi);
  return phi ** (k - 1) * ((sigma2 * (phi + theta) * (1 + phi * theta)) / (1 - phi * phi));
}

/** Lower Cholesky factor of an n × n matrix given by entry(i, j). */
function cholesky(n: number, entry: (i: number, j: number) => number): Float64Array {
  const L = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = entry(i, j);
      for (let k = 0; k < j; k++) s -= L[i * n + k]! * L[j * n + k]!;
      L[i * n + j] = i === j ? Math.sqrt(s) : s / L[j * n + j]!;
    }
  }
  return L;
}

/** Solves L z = b (forward substitution). */
function forward(L: Float64Array, n: number, b: ArrayLike<number>): Float64Array {
  const z = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = b[i]!;
    for (let k = 0; k < i; k++) s -= L[i * n + k]! * z[k]!;
    z[i] = s / L[i * n + i]!;
  }
  return z;
}

/** log N(y; μ1, Γ_n) by Cholesky: −½ (n log 2π + log det Γ + (y − μ)′ Γ⁻¹ (y − μ)). */
export function denseLogLikelihood(y: ArrayLike<number>, m: Arma11): number {
  const n = y.length;
  const L = cholesky(n, (i, j) => autocovariance(m, Math.abs(i - j)));
  const z = forward(
    L,
    n,
    Array.from(y, (v) => v - m.mean),
  );
  let logDet = 0;
  let quad = 0;
  for (let i = 0; i < n; i++) {
    logDet += 2 * Math.log(L[i * n + i]!);
    quad += z[i]! * z[i]!;
  }
  return -0.5 * (n * Math.log(2 * Math.PI) + logDet + quad);
}

/** E[y_{n+j} | y_1..n] and its MSE for j = 1..h: μ + c′ Γ⁻¹ (y − μ), γ(0) − c′ Γ⁻¹ c with c_i = γ(n + j − i). */
export function densePredictor(y: ArrayLike<number>, m: Arma11, h: number): { mean: number[]; mse: number[] } {
  const n = y.length;
  const L = cholesky(n, (i, j) => autocovariance(m, Math.abs(i - j)));
  const z = forward(
    L,
    n,
    Array.from(y, (v) => v - m.mean),
  );
  const mean: number[] = [];
  const mse: number[] = [];
  for (let j = 1; j <= h; j++) {
    const w = forward(
      L,
      n,
      Array.from({ length: n }, (_, i) => autocovariance(m, n - 1 + j - i)),
    );
    let cz = 0;
    let ww = 0;
    for (let i = 0; i < n; i++) {
      cz += w[i]! * z[i]!;
      ww += w[i]! * w[i]!;
    }
    mean.push(m.mean + cz);
    mse.push(autocovariance(m, 0) - ww);
  }
  return { mean, mse };
}

/** A seeded draw of n values of the model, started from its stationary distribution (a long burn-in). */
export function simulateArma11(m: Arma11, n: number, seed: number, burnIn = 500): Float64Array {
  const rng = createRng(seed);
  const sigma = Math.sqrt(m.sigma2);
  const y = new Float64Array(n);
  let x = 0;
  let previous = 0;
  for (let t = -burnIn; t < n; t++) {
    const e = sigma * rng.normal();
    x = m.phi * x + e + m.theta * previous;
    previous = e;
    if (t >= 0) y[t] = m.mean + x;
  }
  return y;
}
