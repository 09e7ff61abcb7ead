/**
 * The exact one-step predictions of an ARMA(1,1) process: the Kalman filter of its state space form with the
 * stationary initialisation, which for this model is the innovations algorithm (P. J. Brockwell and R. A.
 * Davis, "Time Series: Theory and Methods", 2nd ed., Springer 1991, §5.3 and §8.7, and "Introduction to Time
 * Series and Forecasting", 2nd ed., 2002, Example 3.3.4 and §5.2; A. C. Harvey, "Forecasting, Structural Time
 * Series Models and the Kalman Filter", Cambridge 1989, §3.3 and §3.4; J. Durbin and S. J. Koopman, "Time
 * Series Analysis by State Space Methods", 2nd ed., Oxford 2012, §3.4). gretl, Stata and statsmodels compute
 * their exact likelihood with this filter.
 *
 * Model: x_t = y_t − μ, x_t = φ x_{t−1} + ε_t + θ ε_{t−1}, ε_t ~ N(0, σ²), |φ| < 1. State α_t = (x_t, θ ε_t)′:
 *
 *   α_{t+1} = T α_t + R ε_{t+1},  T = [[φ, 1], [0, 0]],  R = (1, θ)′,   x_t = (1, 0) α_t.
 *
 * The filter runs with σ² = 1 (σ² scales every P_t and F_t and is concentrated out of the likelihood by the
 * caller). The stationary covariance P_1 solves P = T P T′ + R R′:
 *
 *   P_1 = [[γ₀, θ], [θ, θ²]],  γ₀ = (1 + 2φθ + θ²) / (1 − φ²)   (the variance of x_t over σ²).
 *
 * Because x_t observes the first state exactly, the updated covariance P_{t|t} is zero except its (2,2) entry
 * θ² − θ²/F_t, and the prediction step gives back P_{t+1} = [[F_{t+1}, θ], [θ, θ²]]. So the whole filter is
 * two scalar recursions:
 *
 *   v_t = x_t − x̂_t,                  x̂_1 = 0,  x̂_{t+1} = φ x_t + θ v_t / F_t,
 *   F_t = Var(v_t) / σ²,              F_1 = γ₀,  F_{t+1} = 1 + θ² − θ² / F_t,
 *
 * Brockwell and Davis' r_t and their one-step predictor X̂_{t+1} = φ X_t + θ_{t1}(X_t − X̂_t) with
 * θ_{t1} = θ / r_{t−1}. F_t does not depend on the data; for |θ| < 1 it falls to 1 geometrically.
 *
 * The innovations are linear in μ: v_t(μ) = v_t(y) − μ v_t(1), where v_t(1) is the filter run on a series
 * of ones with the same F_t. `innovationSums` runs both at once and returns the sums the profile likelihood
 * needs (likelihood.ts), so μ is estimated by GLS for each (φ, θ) without a search over it.
 */

export interface InnovationSums {
  /** Σ v_t(y)² / F_t. */
  yy: number;
  /** Σ v_t(y) v_t(1) / F_t (0 without a mean). */
  y1: number;
  /** Σ v_t(1)² / F_t (0 without a mean). */
  oneOne: number;
  /** Σ log F_t. */
  logF: number;
}

/**
 * Once |F_t − 1| is below this, the filter has reached its steady state to double precision (F_t − 1 shrinks
 * like θ^{2t}): the sums then take F_t = 1, which changes ℓ by less than n·1e−15 and saves a logarithm and
 * three divisions per observation (several times faster on a long series).
 */
const STEADY = 1e-15;

/** The variance of x_t over σ² for a stationary ARMA(1,1): F_1 of the filter. */
export function stationaryVariance(phi: number, theta: number): number {
  return (1 + 2 * phi * theta + theta * theta) / (1 - phi * phi);
}

/**
 * The sums of the filter of `y` (taken as x = y, i.e. μ = 0) and, when `withMean`, of a series of ones, for
 * the profile likelihood. No allocation: it is the objective of the optimiser.
 */
export function innovationSums(y: ArrayLike<number>, phi: number, theta: number, withMean: boolean): InnovationSums {
  const n = y.length;
  const theta2 = theta * theta;
  let F = stationaryVariance(phi, theta);
  let predY = 0;
  let predOne = 0;
  let yy = 0;
  let y1 = 0;
  let oneOne = 0;
  let logF = 0;
  // Σ log F_t as the log of running products, flushed before they could overflow (F_t ≥ 1: F_1 = Σ ψ_j² ≥ 1,
  // and F_{t+1} = 1 + θ²(1 − 1/F_t) ≥ 1), which saves a logarithm per observation.
  let productF = 1;
  let t = 0;
  for (; t < n && Math.abs(F - 1) > STEADY; t++) {
    const x = y[t]!;
    const vY = x - predY;
    const inverseF = 1 / F;
    productF *= F;
    if (productF > 1e150) {
      logF += Math.log(productF);
      productF = 1;
    }
    yy += vY * vY * inverseF;
    predY = phi * x + theta * vY * inverseF;
    if (withMean) {
      const vOne = 1 - predOne;
      y1 += vY * vOne * inverseF;
      oneOne += vOne * vOne * inverseF;
      predOne = phi + theta * vOne * inverseF;
    }
    F = 1 + theta2 - theta2 * inverseF;
  }
  logF += Math.log(productF);
  // Steady state: F_t = 1 from here on (to STEADY), so log F_t = 0 and no division.
  for (; t < n; t++) {
    const x = y[t]!;
    const vY = x - predY;
    yy += vY * vY;
    predY = phi * x + theta * vY;
    if (withMean) {
      const vOne = 1 - predOne;
      y1 += vY * vOne;
      oneOne += vOne * vOne;
      predOne = phi + theta * vOne;
    }
  }
  return { yy, y1, oneOne, logF };
}

/** The filter of x = y − mean at its end: the innovations, their variances over σ², and the next prediction. */
export interface FilterRun {
  /** v_t = x_t − x̂_t. */
  v: Float64Array;
  /** F_t = Var(v_t) / σ². */
  F: Float64Array;
  /** x̂_{n+1}, the one-step prediction after the last observation (of x, not y). */
  next: number;
  /** F_{n+1}, its mean squared error over σ². */
  nextF: number;
}

/** Runs the filter on x = y − mean and keeps every innovation (for the log-likelihood at given parameters and for forecasts). */
export function filterArma11(y: ArrayLike<number>, mean: number, phi: number, theta: number): FilterRun {
  const n = y.length;
  const theta2 = theta * theta;
  const v = new Float64Array(n);
  const F = new Float64Array(n);
  let f = stationaryVariance(phi, theta);
  let pred = 0;
  for (let t = 0; t < n; t++) {
    const x = y[t]! - mean;
    v[t] = x - pred;
    F[t] = f;
    pred = phi * x + (theta * v[t]!) / f;
    f = 1 + theta2 - theta2 / f;
  }
  return { v, F, next: pred, nextF: f };
}
