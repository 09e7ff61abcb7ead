/**
 * Annualised volatility and downside risk, as empyrical computes them (quantopian/empyrical 0.5.5,
 * `empyrical/stats.py`, `annual_volatility` and `downside_risk`).
 *
 * - Annual volatility: the sample standard deviation of the returns present (ddof = 1, missing returns left
 *   out) × √factor (factor 252, 52 or 12). Undefined with fewer than two rows or two returns present; 0 for a
 *   flat series.
 * - Downside risk (the downside deviation below `required_return`, Sortino's target semideviation):
 *   √(mean(min(r − required, 0)²)) × √factor. The mean is over *every* return present, those above the
 *   target counting as 0, not over the losses alone (the standard deviation of the losses is not the downside
 *   deviation), and it divides by n, not n − 1. `required_return` is per period, a number or an aligned series;
 *   a missing return or target leaves the row out. 0 when no return is below the target (one return is
 *   enough); undefined with no rows.
 */
import { checkRate, defined, subtractRate, type Rate } from './inputs.js';
import { nanMean, nanStd } from './nan-stats.js';
import { annualizationFactor, type Period } from './periods.js';

/** empyrical's `annual_volatility(returns, period)`: std(r, ddof=1) × √factor; null with fewer than 2 returns. */
export function annualVolatility(returns: Float64Array, options: { period?: Period } = {}): number | null {
  const factor = annualizationFactor(options.period ?? 'daily');
  if (returns.length < 2) return null;
  return defined(nanStd(returns, 1) * Math.pow(factor, 1 / 2));
}

/** The annualised downside deviation without the null mapping, for the Sortino ratio. */
export function downsideDeviation(returns: Float64Array, requiredReturn: Rate, factor: number): number {
  if (returns.length < 1) return Number.NaN;
  const below = subtractRate(returns, requiredReturn);
  const squares = new Float64Array(below.length);
  for (let i = 0; i < below.length; i++) {
    // numpy: clip(r − required, −inf, 0), squared; NaN stays NaN and is left out of the mean.
    const d = Math.min(below[i]!, 0);
    squares[i] = d * d;
  }
  return Math.sqrt(nanMean(squares)) * Math.sqrt(factor);
}

/** empyrical's `downside_risk(returns, required_return, period)`: √mean(min(r − required, 0)²) × √factor. */
export function downsideRisk(returns: Float64Array, options: { requiredReturn?: Rate; period?: Period } = {}): number | null {
  const factor = annualizationFactor(options.period ?? 'daily');
  const requiredReturn = options.requiredReturn ?? 0;
  checkRate('required_return', requiredReturn, returns);
  return defined(downsideDeviation(returns, requiredReturn, factor));
}
