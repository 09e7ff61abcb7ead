/**
 * The maximum drawdown and the Calmar ratio, as empyrical computes them (quantopian/empyrical 0.5.5,
 * `empyrical/stats.py`, `max_drawdown` and `calmar_ratio`).
 *
 * - Maximum drawdown: the deepest fall of wealth from its running peak, (W_t − max_{s≤t} W_s) / max_{s≤t} W_s,
 *   as a fraction, ≤ 0. Wealth starts at W_0 = 100 *before* the first return and W_t = 100 · ∏_{s≤t}(1 + r_s)
 *   (a missing return counts as 0), so a loss on the first period is a drawdown from the starting wealth: a
 *   series of losses has the drawdown ∏(1 + r) − 1. 0 when wealth never falls; undefined with no returns.
 * - Calmar ratio: annual return / |maximum drawdown|. Its sign is the annual return's (a losing strategy has a
 *   negative Calmar ratio); undefined when there is no drawdown (drawdown ≥ 0), as empyrical.
 */
import { defined } from './inputs.js';
import { annualReturn } from './returns.js';
import { annualizationFactor, type Period } from './periods.js';

const START = 100;

/** empyrical's `max_drawdown(returns)`: ≤ 0, from the wealth before the first return; null without returns. */
export function maxDrawdown(returns: Float64Array): number | null {
  if (returns.length === 0) return null;
  // empyrical: cumprod(1 + r) · 100 behind a first entry of 100, then the running peak (numpy's `fmax`).
  let growth = 1;
  let peak = START;
  let deepest = (START - peak) / peak;
  for (let i = 0; i < returns.length; i++) {
    const r = returns[i]!;
    growth *= (r === r ? r : 0) + 1;
    const wealth = growth * START;
    if (wealth > peak) peak = wealth;
    const drawdown = (wealth - peak) / peak;
    if (drawdown < deepest) deepest = drawdown;
  }
  return defined(deepest);
}

/** empyrical's `calmar_ratio(returns, period)`: annual return / |max drawdown|; null when there is no drawdown. */
export function calmarRatio(returns: Float64Array, options: { period?: Period } = {}): number | null {
  annualizationFactor(options.period ?? 'daily');
  const drawdown = maxDrawdown(returns);
  if (drawdown === null || !(drawdown < 0)) return null;
  const annual = annualReturn(returns, options);
  return annual === null ? null : defined(annual / Math.abs(drawdown));
}
