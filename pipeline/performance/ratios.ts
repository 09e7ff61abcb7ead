/**
 * The Sharpe and Sortino ratios, as empyrical computes them (quantopian/empyrical 0.5.5, `empyrical/stats.py`,
 * `sharpe_ratio` and `sortino_ratio`).
 *
 * - Sharpe ratio: mean(r − rf) / std(r − rf, ddof = 1) × √factor, over the rows where both the return and the
 *   risk-free rate are present. `risk_free` is a rate *per period* (a daily rate for daily returns), a number or
 *   an aligned series, 0 by default (the pipeline's published figures use 0). Undefined with fewer than two
 *   rows, and when the excess returns do not vary (empyrical answers ±inf or NaN there).
 * - Sortino ratio: mean(r − required) × factor / downside risk, where the downside risk is the annualised
 *   downside deviation below the same `required_return` (./volatility.ts). The numerator is the *arithmetic*
 *   mean excess return times the factor, so the ratio is √factor · mean / downside deviation per period.
 *   `required_return` is per period, a number or an aligned series, 0 by default; empyrical's Sortino ratio takes
 *   no risk-free rate. Undefined with fewer than two rows, and when no return is below the target (a zero
 *   downside risk: empyrical's inf).
 */
import { checkRate, defined, subtractRate, type Rate } from './inputs.js';
import { nanMean, nanStd } from './nan-stats.js';
import { annualizationFactor, type Period } from './periods.js';
import { downsideDeviation } from './volatility.js';

/** empyrical's `sharpe_ratio(returns, risk_free, period)`: mean(r − rf) / std(r − rf, ddof=1) × √factor. */
export function sharpeRatio(returns: Float64Array, options: { riskFree?: Rate; period?: Period } = {}): number | null {
  const factor = annualizationFactor(options.period ?? 'daily');
  const riskFree = options.riskFree ?? 0;
  checkRate('risk_free', riskFree, returns);
  if (returns.length < 2) return null;
  const excess = subtractRate(returns, riskFree);
  return defined((nanMean(excess) / nanStd(excess, 1)) * Math.sqrt(factor));
}

/** empyrical's `sortino_ratio(returns, required_return, period)`: mean(r − required) × factor / downside risk. */
export function sortinoRatio(returns: Float64Array, options: { requiredReturn?: Rate; period?: Period } = {}): number | null {
  const factor = annualizationFactor(options.period ?? 'daily');
  const requiredReturn = options.requiredReturn ?? 0;
  checkRate('required_return', requiredReturn, returns);
  if (returns.length < 2) return null;
  const averageAnnualReturn = nanMean(subtractRate(returns, requiredReturn)) * factor;
  return defined(averageAnnualReturn / downsideDeviation(returns, requiredReturn, factor));
}
