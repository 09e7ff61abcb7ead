/**
 * Compounded returns, as empyrical computes them (quantopian/empyrical 0.5.5, `empyrical/stats.py`,
 * `cum_returns_final` and `annual_return`).
 *
 * - Total return: ∏(1 + r) − 1 over the returns present; a missing return counts as 0 (numpy's `nanprod`).
 *   No returns at all: undefined.
 * - Annual return: geometric (the compound annual growth rate), (∏(1 + r))^(1 / years) − 1 with
 *   years = n / factor, where n is the number of rows, missing returns included, and factor 252, 52 or 12:
 *   a missing return is a period that passed with a return of 0. So a leading empty row (the first row of a
 *   series of price changes) lengthens the history by one period, exactly as in empyrical. Undefined with
 *   no rows, and when the wealth ends below zero (a fractional power of a negative number).
 */
import { defined } from './inputs.js';
import { annualizationFactor, type Period } from './periods.js';

/** ∏(1 + r) over the returns present (NaN read as a return of 0). */
export function growthFactor(returns: Float64Array): number {
  let wealth = 1;
  for (let i = 0; i < returns.length; i++) {
    const r = returns[i]!;
    if (r === r) wealth *= r + 1;
  }
  return wealth;
}

/** empyrical's `cum_returns_final(returns)`: ∏(1 + r) − 1; null without returns. */
export function cumReturnsFinal(returns: Float64Array): number | null {
  if (returns.length === 0) return null;
  return defined(growthFactor(returns) - 1);
}

/** empyrical's `annual_return(returns, period)`: (∏(1 + r))^(factor / n) − 1, n counting every row. */
export function annualReturn(returns: Float64Array, options: { period?: Period } = {}): number | null {
  const factor = annualizationFactor(options.period ?? 'daily');
  if (returns.length === 0) return null;
  const years = returns.length / factor;
  return defined(Math.pow(growthFactor(returns), 1 / years) - 1);
}
