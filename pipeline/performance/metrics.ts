/**
 * Every performance figure of a returns series at once, with empyrical's conventions (quantopian/empyrical
 * 0.5.5, `empyrical/stats.py`; each figure's convention is written in its own file): the figures that
 * `tradeseal quant metrics` prints and that the pipeline publishes for its backtest.
 *
 * `n` counts the returns present (a missing return is not an observation); the annual return still counts
 * every row as a period, as empyrical does (./returns.ts). `alpha` and `beta` are there only when a benchmark
 * is given. Every figure is a number or `null` where it is undefined (./inputs.ts).
 */
import { alphaBeta } from './alpha-beta.js';
import { calmarRatio, maxDrawdown } from './drawdown.js';
import { checkAligned, checkRate, invalidArgument, type Rate } from './inputs.js';
import { nanCount } from './nan-stats.js';
import { annualizationFactor, type Period } from './periods.js';
import { sharpeRatio, sortinoRatio } from './ratios.js';
import { annualReturn, cumReturnsFinal } from './returns.js';
import { annualVolatility, downsideRisk } from './volatility.js';

export interface MetricsOptions {
  /** Benchmark returns aligned with the returns (NaN = missing): adds alpha and beta. */
  benchmark?: Float64Array;
  /** Risk-free rate per period, a number or an aligned series, for the Sharpe ratio and alpha; 0 by default. */
  riskFree?: Rate;
  /** Target return per period for the Sortino ratio and the downside risk; 0 by default. */
  requiredReturn?: Rate;
  /** Periodicity of the returns: annualisation by 252, 52 or 12; daily by default. */
  period?: Period;
}

export interface PerformanceMetrics {
  n: number;
  sharpe_ratio: number | null;
  sortino_ratio: number | null;
  annual_return: number | null;
  annual_volatility: number | null;
  max_drawdown: number | null;
  calmar_ratio: number | null;
  downside_risk: number | null;
  cum_returns_final: number | null;
}

export interface BenchmarkMetrics {
  alpha: number | null;
  beta: number | null;
}

export function performanceMetrics(returns: Float64Array, options: MetricsOptions & { benchmark: Float64Array }): PerformanceMetrics & BenchmarkMetrics;
export function performanceMetrics(returns: Float64Array, options?: MetricsOptions): PerformanceMetrics & Partial<BenchmarkMetrics>;
export function performanceMetrics(returns: Float64Array, options: MetricsOptions = {}): PerformanceMetrics & Partial<BenchmarkMetrics> {
  if (!(returns instanceof Float64Array)) throw invalidArgument('returns', 'expected a Float64Array');
  const period = options.period ?? 'daily';
  const riskFree = options.riskFree ?? 0;
  const requiredReturn = options.requiredReturn ?? 0;
  annualizationFactor(period);
  checkRate('risk_free', riskFree, returns);
  checkRate('required_return', requiredReturn, returns);
  if (options.benchmark !== undefined) checkAligned('benchmark', options.benchmark, returns);

  const figures: PerformanceMetrics = {
    n: nanCount(returns),
    sharpe_ratio: sharpeRatio(returns, { riskFree, period }),
    sortino_ratio: sortinoRatio(returns, { requiredReturn, period }),
    annual_return: annualReturn(returns, { period }),
    annual_volatility: annualVolatility(returns, { period }),
    max_drawdown: maxDrawdown(returns),
    calmar_ratio: calmarRatio(returns, { period }),
    downside_risk: downsideRisk(returns, { requiredReturn, period }),
    cum_returns_final: cumReturnsFinal(returns),
  };
  if (options.benchmark === undefined) return figures;
  return { ...figures, ...alphaBeta(returns, options.benchmark, { riskFree, period }) };
}
