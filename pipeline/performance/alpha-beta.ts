/**
 * Beta and alpha against a benchmark, as empyrical computes them (quantopian/empyrical 0.5.5,
 * `empyrical/stats.py`, `beta_aligned`, `alpha_aligned`, `alpha_beta_aligned`). The benchmark is aligned
 * with the returns, one value per row.
 *
 * - Beta: cov(r, b) / var(b) over the rows where both the return and the benchmark are present (the ordinary
 *   least-squares slope of r on b). Both moments divide by the same count, so the ddof does not matter.
 *   Undefined with fewer than two rows and when the benchmark's variance on those rows is below 1e−30
 *   (empyrical's threshold: a flat benchmark). The risk-free rate plays no part: empyrical's beta accepts
 *   one and does not use it (a constant rate would cancel anyway).
 * - Alpha: geometric annualisation of the mean residual per period, α = (1 + mean((r − rf) − β·(b − rf)))^factor − 1
 *   (factor 252, 52 or 12), the mean over the rows where every term is present; `risk_free` is per period, a
 *   number or an aligned series, 0 by default. Not 252 × the mean residual (the regression intercept), which
 *   empyrical used before 0.5.3 (commit 4cb0508, "BUG: fix annualization of alpha"). Undefined with fewer than
 *   two rows and when beta is undefined.
 */
import { checkAligned, checkRate, defined, subtractRate, type Rate } from './inputs.js';
import { nanMean } from './nan-stats.js';
import { annualizationFactor, type Period } from './periods.js';

export interface AlphaBeta {
  alpha: number | null;
  beta: number | null;
}

/** A benchmark variance below this is none (empyrical's `independent_variances < 1.0e-30`). */
const MIN_VARIANCE = 1.0e-30;

/** cov(r, b) / var(b) over the rows with both, as empyrical's `beta_aligned`; NaN where undefined. */
function rawBeta(returns: Float64Array, benchmark: Float64Array): number {
  if (returns.length < 2) return Number.NaN;
  // The benchmark where the return is missing is missing too, so both moments use the same rows.
  const independent = new Float64Array(returns.length);
  for (let i = 0; i < returns.length; i++) independent[i] = Number.isNaN(returns[i]!) ? Number.NaN : benchmark[i]!;
  const mean = nanMean(independent);
  const crossProducts = new Float64Array(returns.length);
  const squares = new Float64Array(returns.length);
  for (let i = 0; i < returns.length; i++) {
    const residual = independent[i]! - mean;
    crossProducts[i] = residual * returns[i]!;
    squares[i] = residual * residual;
  }
  // mean((b − mean b) · r) is the covariance: the centred benchmark has mean 0, so r needs no centring.
  const covariance = nanMean(crossProducts);
  const variance = nanMean(squares);
  return variance < MIN_VARIANCE ? Number.NaN : covariance / variance;
}

/** (1 + mean((r − rf) − β(b − rf)))^factor − 1, as empyrical's `alpha_aligned`; NaN where undefined. */
function rawAlpha(returns: Float64Array, benchmark: Float64Array, riskFree: Rate, factor: number, beta: number): number {
  if (returns.length < 2) return Number.NaN;
  const excess = subtractRate(returns, riskFree);
  const benchmarkExcess = subtractRate(benchmark, riskFree);
  const residuals = new Float64Array(returns.length);
  for (let i = 0; i < returns.length; i++) residuals[i] = excess[i]! - beta * benchmarkExcess[i]!;
  return Math.pow(nanMean(residuals) + 1, factor) - 1;
}

function check(returns: Float64Array, benchmark: Float64Array, riskFree: Rate): void {
  checkAligned('benchmark', benchmark, returns);
  checkRate('risk_free', riskFree, returns);
}

/** empyrical's `beta(returns, factor_returns)`: cov / var over the rows with both. */
export function beta(returns: Float64Array, benchmark: Float64Array): number | null {
  check(returns, benchmark, 0);
  return defined(rawBeta(returns, benchmark));
}

/** empyrical's `alpha(returns, factor_returns, risk_free, period)`: (1 + mean(r − rf − β(b − rf)))^factor − 1. */
export function alpha(returns: Float64Array, benchmark: Float64Array, options: { riskFree?: Rate; period?: Period } = {}): number | null {
  return alphaBeta(returns, benchmark, options).alpha;
}

/** empyrical's `alpha_beta(returns, factor_returns, risk_free, period)`: both, beta computed once. */
export function alphaBeta(returns: Float64Array, benchmark: Float64Array, options: { riskFree?: Rate; period?: Period } = {}): AlphaBeta {
  const factor = annualizationFactor(options.period ?? 'daily');
  const riskFree = options.riskFree ?? 0;
  check(returns, benchmark, riskFree);
  const b = rawBeta(returns, benchmark);
  return { alpha: defined(rawAlpha(returns, benchmark, riskFree, factor, b)), beta: defined(b) };
}
