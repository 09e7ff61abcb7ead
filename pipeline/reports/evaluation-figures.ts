/**
 * The figures of one strategy over a run of evaluated days (./evaluation-days.ts), and the share of those days
 * in each regime. Risk and return with empyrical's conventions (../performance, checked against empyrical's own
 * tests), on the strategy's daily simple returns, risk-free 0:
 *
 * - `sharpe`: mean / std (ddof = 1) × √252;
 * - `cagr`: the annual return, (∏(1 + r))^(252 / days) − 1;
 * - `max_drawdown`: the deepest fall from a running peak, ≤ 0, from the wealth before the first day;
 * - `calmar`: cagr / |max_drawdown|;
 * - `avg_exposure`: the mean of the daily exposures;
 * - `turnover_per_year`: Σ |exposure_t − exposure_{t−1}| over the days, t − 1 the evaluated day before (also
 *   when it lies before the days given; nothing on the very first evaluated day), divided by the years,
 *   days / 252. Going from all in to all out and back is a turnover of 2;
 * - `changes_per_year`: the days on which the position changed (the regime strategy: the regime it holds, that
 *   is each change of the published regime; the 200-day rule: each switch in or out; buy-and-hold none),
 *   divided by the years.
 *
 * A figure is null where it is undefined: no days, no variance (Sharpe), no drawdown (Calmar).
 */
import { type Regime, REGIMES } from '../../src/core/vocabulary.js';
import { ANNUALIZATION_FACTORS, annualReturn, calmarRatio, maxDrawdown, sharpeRatio } from '../performance/index.js';
import type { EvaluatedDay, StrategyName } from './evaluation-days.js';

export const TRADING_DAYS_PER_YEAR = ANNUALIZATION_FACTORS.daily;

export interface StrategyFigures {
  sharpe: number | null;
  cagr: number | null;
  max_drawdown: number | null;
  calmar: number | null;
  avg_exposure: number | null;
  turnover_per_year: number | null;
  changes_per_year: number | null;
}

/** days / 252. */
export const yearsOf = (days: number): number => days / TRADING_DAYS_PER_YEAR;

export function strategyFigures(days: readonly EvaluatedDay[], strategy: StrategyName): StrategyFigures {
  const n = days.length;
  const returns = Float64Array.from(days, (d) => d.returns[strategy]);
  const sum = (f: (d: EvaluatedDay) => number): number => days.reduce((acc, d) => acc + f(d), 0);
  const perYear = (x: number): number | null => (n === 0 ? null : x / yearsOf(n));
  return {
    sharpe: sharpeRatio(returns),
    cagr: annualReturn(returns),
    max_drawdown: maxDrawdown(returns),
    calmar: calmarRatio(returns),
    avg_exposure: n === 0 ? null : sum((d) => d.exposure[strategy]) / n,
    turnover_per_year: perYear(sum((d) => d.traded[strategy])),
    changes_per_year: perYear(sum((d) => (d.changed[strategy] ? 1 : 0))),
  };
}

/** The share (0 to 1) of the days on which each regime was published; all 0 without days. */
export function regimeShares(days: readonly EvaluatedDay[]): Record<Regime, number> {
  const counts: Record<Regime, number> = { expansion: 0, recovery: 0, tightening: 0, risk_off: 0 };
  for (const d of days) counts[d.regime]++;
  return Object.fromEntries(REGIMES.map((r) => [r, days.length === 0 ? 0 : counts[r] / days.length])) as Record<Regime, number>;
}
