/**
 * How sure the comparisons of the signal-quality evaluation (./evaluate.ts) are, for each named window:
 *
 * - against each benchmark (the 200-day rule, buy-and-hold), the stationary bootstrap
 *   (../performance/bootstrap.ts) of the Sharpe and the Calmar difference, regime strategy − benchmark: the
 *   three strategies' daily returns resampled on the same days, then the 90 % and 95 % percentile intervals of
 *   each difference and P(lead ≤ 0), the share of resamples in which the regime strategy is not ahead;
 * - the regime strategy's deflated Sharpe ratio (../performance/deflated-sharpe.ts) against the variants the
 *   research tried (./research-trials.ts).
 *
 * The mean block length is chosen from the data (../performance/block-length.ts): the longest of the
 * Politis–White lengths of the three return series and of their squares (the squares carry the volatility
 * clusters and the regime strategy's spells out of the market, on which the Sharpe ratio's denominator and the
 * drawdowns depend), at least 1. The number of resamples and the seed are fixed, so the figures are the same on
 * every run. The figures are the tables' own (../performance: Sharpe annualised, Calmar = CAGR / |max
 * drawdown|), so an interval is in the units of the table beside it.
 *
 * Pure: the daily return series in, whatever computed them.
 */
import { calmarRatio, sharpeRatio } from '../performance/index.js';
import { stationaryBlockLength } from '../performance/block-length.js';
import { differenceInterval, differences, jointBootstrap, type DifferenceInterval } from '../performance/bootstrap.js';
import { deflatedSharpe, type DeflatedSharpe } from '../performance/deflated-sharpe.js';
import { STRATEGIES, type EvaluatedDay, type PerStrategy } from './evaluation-days.js';
import { TRADING_DAYS_PER_YEAR } from './evaluation-figures.js';
import { inWindow, WINDOW_NAMES, type DateWindow, type WindowName } from './evaluation-windows.js';
import type { ResearchTrials } from './research-trials.js';

/** 5,000 resamples: the 2.5 % tail holds 125 of them; the three windows of 2007–2025 take about 5 s on one core. */
export const BOOTSTRAP_RESAMPLES = 5000;
/** The seed of every resampling (../random.ts): the year of Politis and Romano's paper. */
export const BOOTSTRAP_SEED = 1994;

export const BENCHMARKS = ['ma200', 'buy_and_hold'] as const;
export type BenchmarkName = (typeof BENCHMARKS)[number];

export interface Comparison {
  sharpe: DifferenceInterval;
  calmar: DifferenceInterval;
}

export interface WindowUncertainty {
  days: number;
  resamples: number;
  seed: number;
  /** The mean block length b of the resamples; null without the 3 days it needs. */
  mean_block: number | null;
  /** Regime strategy − benchmark; null without the 3 days a block length needs. */
  versus: Record<BenchmarkName, Comparison | null>;
  /** The regime strategy's; null without returns that have a Sharpe ratio, or without trials. */
  deflated_sharpe: (DeflatedSharpe & { source: string }) | null;
}

const squares = (x: Float64Array): Float64Array => x.map((v) => v * v);

/**
 * The tables' Sharpe ratio (../performance `sharpeRatio`: risk-free 0, mean / std (ddof = 1) × √252) for
 * returns without NaN, as the resamples are: the same figure in two plain passes, several times faster than the
 * general function, which handles missing values and risk-free rates (the test holds the two equal).
 */
export function resampleSharpe(returns: Float64Array): number | null {
  const n = returns.length;
  if (n < 2) return null;
  let sum = 0;
  for (let t = 0; t < n; t++) sum += returns[t]!;
  const mean = sum / n;
  let squared = 0;
  for (let t = 0; t < n; t++) squared += (returns[t]! - mean) ** 2;
  const std = Math.sqrt(squared / (n - 1));
  return std > 0 ? (mean / std) * Math.sqrt(TRADING_DAYS_PER_YEAR) : null;
}

/** The mean block length for resampling `series` together: the longest Politis–White length of each and of its squares, at least 1. */
export function jointBlockLength(series: readonly Float64Array[]): number {
  return Math.max(1, ...series.flatMap((x) => [stationaryBlockLength(x), stationaryBlockLength(squares(x))]));
}

const observed = (f: (r: Float64Array) => number | null, a: Float64Array, b: Float64Array): number | null => {
  const x = f(a);
  const y = f(b);
  return x === null || y === null ? null : x - y;
};

/** The uncertainty of one window's comparisons, from the three strategies' daily returns on its days (same length, no NaN). */
export function windowUncertainty(
  returns: PerStrategy<Float64Array>,
  trials: ResearchTrials | null,
  resamples = BOOTSTRAP_RESAMPLES,
  seed = BOOTSTRAP_SEED,
): WindowUncertainty {
  const deflated = trials === null ? null : deflatedSharpe(returns.regime, trials.trials, trials.sharpe_variance_per_day);
  const base = {
    days: returns.regime.length,
    resamples,
    seed,
    deflated_sharpe: deflated === null || trials === null ? null : { ...deflated, source: trials.source },
  };
  if (returns.regime.length < 3) return { ...base, mean_block: null, versus: { ma200: null, buy_and_hold: null } };
  const meanBlock = jointBlockLength(STRATEGIES.map((s) => returns[s]));
  const values = jointBootstrap(returns, { sharpe: resampleSharpe, calmar: calmarRatio }, { resamples, meanBlock, seed });
  const versus = (b: BenchmarkName): Comparison => ({
    sharpe: differenceInterval(observed(sharpeRatio, returns.regime, returns[b]), differences(values.regime.sharpe, values[b].sharpe)),
    calmar: differenceInterval(observed(calmarRatio, returns.regime, returns[b]), differences(values.regime.calmar, values[b].calmar)),
  });
  return { ...base, mean_block: meanBlock, versus: { ma200: versus('ma200'), buy_and_hold: versus('buy_and_hold') } };
}

/** What the evaluation's statistics need besides the days: the research's trials (null: no deflated Sharpe ratio). */
export interface StatisticsInputs {
  trials: ResearchTrials | null;
}

/** The uncertainty of each named window's comparisons, from the evaluated days (./evaluation-days.ts) within its bounds. */
export function evaluationUncertainty(
  all: readonly EvaluatedDay[],
  bounds: Record<WindowName, DateWindow>,
  inputs: StatisticsInputs,
): Record<WindowName, WindowUncertainty> {
  return Object.fromEntries(
    WINDOW_NAMES.map((name) => {
      const days = all.filter((d) => inWindow(d.date, bounds[name]));
      const returns = Object.fromEntries(STRATEGIES.map((s) => [s, Float64Array.from(days, (d) => d.returns[s])])) as PerStrategy<Float64Array>;
      return [name, windowUncertainty(returns, inputs.trials)];
    }),
  ) as Record<WindowName, WindowUncertainty>;
}
