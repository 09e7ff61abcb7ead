/**
 * The chart data of the interface: the last 730 published days, with the cumulative value of buy-and-hold SPY
 * (`equity500`) and of the regime strategy (`strategy`), both executed as ./strategy.ts says (a regime taken at the
 * first open after it is published, marked to market at the closes, net of the cost), and of gold (GLD, `gold`,
 * close to close: a reference line, not traded), each 100.0 on the window's first day, and the `stats` block over
 * the same window: `sharpe_proxy` (the strategy's annualised Sharpe ratio),
 * `max_drawdown` (the strategy's, ≤ 0), `avg_persistence_days`, `strategy_annual_return`, `bh_annual_return`,
 * `total_days`, `regime_distribution` (percent of the window's days per regime). A day without a return (no
 * open or close) keeps the previous value. Pure: published days and the strategy's days in.
 */
import type { Regime } from '../../src/core/vocabulary.js';
import { annualReturn, maxDrawdown, sharpeRatio } from '../performance/index.js';
import { backtestSummary } from './backtest.js';
import type { RegimeDay, StrategyDay } from './strategy.js';

export const CHART_DAYS = 730;

export interface ChartRow {
  date: string;
  regime: Regime;
  risk_score: number;
  equity500: number;
  gold: number;
  strategy: number;
}

export interface ChartData {
  days: number;
  series: ChartRow[];
  stats: {
    sharpe_proxy: number | null;
    max_drawdown: number | null;
    avg_persistence_days: number;
    strategy_annual_return: number | null;
    bh_annual_return: number | null;
    total_days: number;
    regime_distribution: Record<Regime, number>;
  };
}

export function chartData(published: readonly RegimeDay[], strategy: readonly StrategyDay[], window = CHART_DAYS): ChartData {
  const days = published.slice(-window);
  const byDate = new Map(strategy.map((s) => [s.date, s]));
  // Returns inside the window: the window's first day is the base (100), its own return is not counted.
  const inside = days.slice(1).map((d) => byDate.get(d.date));
  const value = { equity500: 100, gold: 100, strategy: 100 };
  const series: ChartRow[] = days.map((d, i) => {
    const s = i === 0 ? undefined : inside[i - 1];
    if (s) {
      value.equity500 *= 1 + s.market;
      value.strategy *= 1 + s.strategy;
      if (Number.isFinite(s.gold)) value.gold *= 1 + s.gold;
    }
    return { date: d.date, regime: d.regime, risk_score: d.risk_score, ...value };
  });
  const present = inside.filter((s): s is StrategyDay => s !== undefined);
  const strat = Float64Array.from(present, (s) => s.strategy);
  const market = Float64Array.from(present, (s) => s.market);
  const summary = backtestSummary(days);
  return {
    days: days.length,
    series,
    stats: {
      sharpe_proxy: sharpeRatio(strat),
      max_drawdown: maxDrawdown(strat),
      avg_persistence_days: summary.avg_persistence_days,
      strategy_annual_return: annualReturn(strat),
      bh_annual_return: annualReturn(market),
      total_days: summary.total_days,
      regime_distribution: summary.regime_distribution,
    },
  };
}
