/**
 * The exact Gaussian log-likelihood of an ARMA(1,1) series: the prediction error decomposition of the
 * Kalman filter with the stationary initialisation (innovations.ts), every observation included (A. C. Harvey,
 * "Forecasting, Structural Time Series Models and the Kalman Filter", Cambridge 1989, §3.4, eq. 3.4.5;
 * P. J. Brockwell and R. A. Davis, "Time Series: Theory and Methods", 2nd ed., 1991, §8.7, eq. 8.7.4):
 *
 *   ℓ(μ, φ, θ, σ²) = −½ Σ_t [ log 2π + log(σ² F_t) + v_t² / (σ² F_t) ].
 *
 * This is what gretl's `arima` (exact ML, its default), Stata's `arima` and statsmodels' `ARIMA` /
 * `SARIMAX` maximise; it is not the conditional sum of squares, which drops the first observation's term.
 *
 * For the fit, σ² and μ are concentrated out (Harvey §3.4, eq. 3.4.7): for given (φ, θ) the innovations are
 * linear in μ, v_t(μ) = v_t(y) − μ v_t(1), so μ̂ is the GLS estimate Σ v(y)v(1)/F ÷ Σ v(1)²/F, and
 * σ̂² = (1/n) Σ v_t(μ̂)² / F_t. The profile log-likelihood
 *
 *   ℓ*(φ, θ) = −n/2 (log 2π + log σ̂² + 1) − ½ Σ log F_t
 *
 * has the same maximum as ℓ, so the search is over (φ, θ) alone.
 */
import { filterArma11, innovationSums } from './innovations.js';
import type { Arma11 } from './model.js';

const LOG_2PI = Math.log(2 * Math.PI);

/** ℓ at the given parameters (no search): for checking published estimates against their published ℓ. */
export function logLikelihood(y: ArrayLike<number>, model: Arma11): number {
  const { v, F } = filterArma11(y, model.mean, model.phi, model.theta);
  let sum = 0;
  for (let t = 0; t < v.length; t++) {
    const f = model.sigma2 * F[t]!;
    sum += LOG_2PI + Math.log(f) + (v[t]! * v[t]!) / f;
  }
  return -0.5 * sum;
}

export interface Profile {
  /** ℓ at (μ̂, φ, θ, σ̂²). */
  loglik: number;
  /** μ̂ (0 without a mean). */
  mean: number;
  /** σ̂². */
  sigma2: number;
}

/** The profile log-likelihood ℓ*(φ, θ) with μ̂ and σ̂², the objective of the fit. */
export function profileLogLikelihood(y: ArrayLike<number>, phi: number, theta: number, withMean: boolean): Profile {
  const n = y.length;
  const s = innovationSums(y, phi, theta, withMean);
  // With a mean: Σ (v_y − μ v_1)²/F is smallest at μ̂ = y1 / oneOne, where it equals yy − y1²/oneOne.
  const mean = withMean ? s.y1 / s.oneOne : 0;
  const ssr = withMean ? s.yy - mean * s.y1 : s.yy;
  const sigma2 = ssr / n;
  return { loglik: -0.5 * n * (LOG_2PI + Math.log(sigma2) + 1) - 0.5 * s.logF, mean, sigma2 };
}
