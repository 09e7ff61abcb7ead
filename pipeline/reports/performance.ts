/**
 * The performance of the published history (docs/decisions/0035-backtest-and-performance.md): the regime strategy
 * (strategy.ts: each regime's exposure taken at the first SPY open after it is published, marked to market at
 * the closes, net of `cost_bps` per unit of exposure change, ./execution.ts) against buy-and-hold SPY executed
 * the same way, with empyrical's conventions (../performance/): `sharpe` (annualised, rf = 0),
 * `max_drawdown` (≤ 0, from the wealth before the first return), `total_return` (∏(1 + r) − 1), `alpha`
 * (geometric, annualised, against buy-and-hold), and `by_regime`: for each regime, the days whose exposure was
 * taken from it at the open, and buy-and-hold's mean daily return, annualised return ((∏(1 + r))^(252/n) − 1) and
 * hit rate (the share of those days with a positive return) on them: what the market did while the model said
 * that regime. Pure: the strategy's days and the cost they are net of in, the report out.
 */
import { type Regime, REGIMES } from '../../src/core/vocabulary.js';
import { alpha, annualReturn, cumReturnsFinal, maxDrawdown, sharpeRatio } from '../performance/index.js';
import type { StrategyDay } from './strategy.js';

export interface RegimePerformance {
  days: number;
  mean_daily_return: number | null;
  annualized_return: number | null;
  hit_rate: number | null;
}

export interface PerformanceReport {
  first_day: string | null;
  last_day: string | null;
  /** Days with a strategy return (every published day but the first). */
  days: number;
  /** The cost the strategy's returns are net of: basis points per unit of exposure change. */
  cost_bps: number;
  sharpe: number | null;
  max_drawdown: number | null;
  total_return: number | null;
  alpha: number | null;
  annual_return: number | null;
  benchmark: { sharpe: number | null; max_drawdown: number | null; total_return: number | null; annual_return: number | null };
  by_regime: Record<Regime, RegimePerformance>;
}

function regimeFigures(returns: Float64Array): RegimePerformance {
  const n = returns.length;
  if (n === 0) return { days: 0, mean_daily_return: null, annualized_return: null, hit_rate: null };
  let sum = 0;
  let hits = 0;
  for (const r of returns) {
    sum += r;
    if (r > 0) hits++;
  }
  return { days: n, mean_daily_return: sum / n, annualized_return: annualReturn(returns), hit_rate: hits / n };
}

export function performanceReport(days: readonly StrategyDay[], costBps: number): PerformanceReport {
  const strategy = Float64Array.from(days, (d) => d.strategy);
  const market = Float64Array.from(days, (d) => d.market);
  const byRegime = Object.fromEntries(
    REGIMES.map((regime) => [
      regime,
      regimeFigures(
        Float64Array.from(
          days.filter((d) => d.held === regime),
          (d) => d.market,
        ),
      ),
    ]),
  ) as Record<Regime, RegimePerformance>;
  return {
    first_day: days[0]?.date ?? null,
    last_day: days.at(-1)?.date ?? null,
    days: days.length,
    cost_bps: costBps,
    sharpe: sharpeRatio(strategy),
    max_drawdown: maxDrawdown(strategy),
    total_return: cumReturnsFinal(strategy),
    alpha: days.length > 1 ? alpha(strategy, market) : null,
    annual_return: annualReturn(strategy),
    benchmark: { sharpe: sharpeRatio(market), max_drawdown: maxDrawdown(market), total_return: cumReturnsFinal(market), annual_return: annualReturn(market) },
    by_regime: byRegime,
  };
}
