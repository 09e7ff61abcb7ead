/**
 * The inputs of the performance figures and what comes back: returns are simple (not log) returns per period,
 * a `Float64Array` with NaN for a missing value; a second series (a benchmark, a risk-free rate series, a
 * required return series) is aligned with the returns, one value per row, NaN where missing, as empyrical
 * expects of its `*_aligned` functions (quantopian/empyrical 0.5.5, `empyrical/stats.py`).
 *
 * A rate (`risk_free`, `required_return`) is per period of the returns (a daily rate for daily returns), a
 * number or an aligned series, and is subtracted from each return as empyrical's `_adjust_returns` does
 * (`returns − rate`; a missing rate makes that row missing).
 *
 * A figure is `null` where empyrical answers NaN or ±inf: too few observations, a zero denominator (no
 * variance, no downside, no drawdown), or no real value (a fractional power of a negative wealth). JSON has
 * neither NaN nor infinity, and a quant reading the figures needs "undefined", not a number.
 *
 * Arguments are checked here, at the edge, with the argument's name in the message (`validation_failed`).
 */
import { validationError, type TradesealError } from '../../src/core/errors.js';

/** A rate per period of the returns: one number for every row, or one value per row (NaN = missing). */
export type Rate = number | Float64Array;

export const invalidArgument = (field: string, message: string): TradesealError => validationError([{ field, message }], `${field}: ${message}`);

/** `series` has one value per return. */
export function checkAligned(name: string, series: Float64Array, returns: Float64Array): void {
  if (!(series instanceof Float64Array)) throw invalidArgument(name, 'expected a Float64Array');
  if (series.length !== returns.length) {
    throw invalidArgument(name, `expected one value per return (${returns.length}), got ${series.length}; align the series first`);
  }
}

/** A finite number, or a series aligned with the returns. */
export function checkRate(name: string, rate: Rate, returns: Float64Array): void {
  if (typeof rate === 'number') {
    if (!Number.isFinite(rate)) throw invalidArgument(name, `expected a finite number per period, got ${rate}`);
  } else checkAligned(name, rate, returns);
}

/** returns − rate, row by row (empyrical's `_adjust_returns`); a rate of 0 leaves the returns as they are. */
export function subtractRate(returns: Float64Array, rate: Rate): Float64Array {
  if (rate === 0) return returns;
  const out = new Float64Array(returns.length);
  for (let i = 0; i < returns.length; i++) out[i] = returns[i]! - (typeof rate === 'number' ? rate : rate[i]!);
  return out;
}

/** A figure as this module returns it: the number, or null for empyrical's NaN and ±inf. */
export const defined = (x: number): number | null => (Number.isFinite(x) ? x : null);
