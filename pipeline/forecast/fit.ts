/**
 * Fitting an ARMA(1,1), with or without a mean, by exact Gaussian maximum likelihood (likelihood.ts), the
 * estimator of gretl's `arima 1 0 1` (exact ML), Stata's `arima, arima(1,0,1)`, R's `arima(order = c(1,0,1))`
 * and statsmodels' `ARIMA(order=(1, 0, 1))`. Not conditional sum of squares.
 *
 * - σ² and μ are concentrated out (profile likelihood, likelihood.ts), so the search is over (φ, θ) only.
 * - The search runs over the unconstrained plane (a, b) with φ = tanh a, θ = tanh b, where every point is
 *   stationary and invertible; the likelihood can have several local maxima, a maximum on the boundary
 *   θ = ±1 and a white-noise ridge φ = −θ, so searches start from the local maxima of a grid and from next to
 *   the boundary (search-space.ts). Each is a Nelder–Mead search (nelder-mead.ts, which says why it is our
 *   own); the best result is restarted once with a fresh simplex, the usual guard against a simplex that
 *   collapsed before the optimum.
 * - With a mean, the series is centred on its sample mean first (the model is shift-equivariant, and it keeps
 *   the GLS sums of a series far from 0 free of cancellation); μ̂ is shifted back.
 *
 * Deterministic: no randomness, a fixed grid and order. About 1,600 likelihood evaluations per fit, each one
 * pass over the series: 250 values take a few milliseconds, 100,000 about a second.
 */
import { MIN_OBSERVATIONS, assertSeries } from './series.js';
import { profileLogLikelihood } from './likelihood.js';
import type { Arma11 } from './model.js';
import { nelderMead, type NelderMeadOptions } from './nelder-mead.js';
import { startingPoints, toCoefficient } from './search-space.js';

export { MIN_OBSERVATIONS };

export interface Arma11Fit extends Arma11 {
  /** Observations used: all of them. */
  n: number;
  /** Whether μ was estimated (false: μ = 0). */
  withMean: boolean;
  /** The maximised exact log-likelihood. */
  loglik: number;
  /** Likelihood evaluations the search used (for tests and benchmarks). */
  evaluations: number;
}

const SEARCH: NelderMeadOptions = { step: 0.3, xTol: 1e-10, fTol: 1e-12, maxEvaluations: 2000 };
const RESTART: NelderMeadOptions = { ...SEARCH, step: 0.05 };

/**
 * The exact maximum likelihood ARMA(1,1) of `y`. Throws `validation_failed` for a series shorter than
 * MIN_OBSERVATIONS, constant, or with a non-finite value (series.ts).
 */
export function fitArma11(y: ArrayLike<number>, options: { withMean?: boolean } = {}): Arma11Fit {
  assertSeries(y);
  const withMean = options.withMean ?? true;
  const n = y.length;
  let shift = 0;
  if (withMean) {
    for (let t = 0; t < n; t++) shift += y[t]!;
    shift /= n;
  }
  const x = Float64Array.from(y, (v) => v - shift);
  const objective = (ab: Float64Array): number => -profileLogLikelihood(x, toCoefficient(ab[0]!), toCoefficient(ab[1]!), withMean).loglik;

  const { starts, evaluations: onGrid } = startingPoints(objective);
  let evaluations = onGrid;
  let best: { x: Float64Array; f: number } = { x: starts[0]!.ab, f: starts[0]!.f };
  for (const start of starts) {
    const m = nelderMead(objective, start.ab, SEARCH);
    evaluations += m.evaluations;
    if (m.f < best.f) best = m;
  }
  const restarted = nelderMead(objective, best.x, RESTART);
  evaluations += restarted.evaluations;
  if (restarted.f <= best.f) best = restarted;

  const phi = toCoefficient(best.x[0]!);
  const theta = toCoefficient(best.x[1]!);
  const profile = profileLogLikelihood(x, phi, theta, withMean);
  return { n, withMean, mean: withMean ? profile.mean + shift : 0, phi, theta, sigma2: profile.sigma2, loglik: profile.loglik, evaluations };
}
