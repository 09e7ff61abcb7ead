/**
 * A quant's judgement of the published regimes: the regime strategy of the interface against the two
 * baselines it has to beat, buy-and-hold and the 200-day moving-average rule, on exactly the same days
 * (./evaluation-days.ts), each traded at the first open after what it knows and net of the same cost per unit
 * of exposure change (./execution.ts), with the same figures for each (./evaluation-figures.ts): over the full window, its
 * in-sample and out-of-sample parts (./evaluation-windows.ts), and each calendar year, with the share of days
 * in each regime. The verdict says whether the regime strategy is ahead of the 200-day rule on Sharpe and
 * Calmar over the full window and not behind it on either out of sample; it is information, not a test.
 *
 * Pure: the published days (date, regime; oldest first), the instrument's prices by date and the cost in,
 * figures out.
 * `npm run bench:signal` feeds it what a pipeline run would publish, `tradeseal quant evaluate` what is
 * published.
 */
import type { Regime } from '../../src/core/vocabulary.js';
import { evaluationDays, STRATEGIES, type EvaluatedDay, type PerStrategy } from './evaluation-days.js';
import { regimeShares, strategyFigures, yearsOf, type StrategyFigures } from './evaluation-figures.js';
import { evaluationUncertainty, type StatisticsInputs, type WindowUncertainty } from './evaluation-uncertainty.js';
import { EVALUATION_WINDOWS, fullWindow, intersect, inWindow, WINDOW_NAMES, type DateWindow, type WindowName } from './evaluation-windows.js';
import type { MarketDay, RegimeDay } from './strategy.js';

export { STRATEGIES, type StrategyName, type PerStrategy } from './evaluation-days.js';
export type { StrategyFigures } from './evaluation-figures.js';

export interface WindowEvaluation {
  /** `full`, `in_sample`, `out_of_sample`, or the calendar year. */
  name: string;
  /** The window asked for (a named window is cut to the full window). */
  from: string;
  to: string;
  /** The first and last evaluated day in it; null when it has none. */
  first_day: string | null;
  last_day: string | null;
  days: number;
  /** days / 252. */
  years: number;
  strategies: PerStrategy<StrategyFigures>;
  /** The share (0 to 1) of the window's days on which each regime was published. */
  regime_share: Record<Regime, number>;
}

export interface Verdict {
  /** Over the full window: the regime strategy's figure above the 200-day rule's. */
  full: { sharpe_ahead: boolean; calmar_ahead: boolean };
  /** Out of sample: the regime strategy's figure at least the 200-day rule's. */
  out_of_sample: { sharpe_not_behind: boolean; calmar_not_behind: boolean };
  /** All four. */
  holds: boolean;
}

export interface Evaluation {
  /** The cost every strategy's returns are net of: basis points per unit of exposure change. */
  cost_bps: number;
  /** Every day the inputs allow to evaluate, whatever the windows: a day needs a regime published before its open, its open and close, a close the day before, and 200 closes up to the day before. */
  evaluable: { first_day: string | null; last_day: string | null; days: number };
  windows: Record<WindowName, WindowEvaluation>;
  /** Each calendar year of the full window that has an evaluated day, oldest first. */
  years: WindowEvaluation[];
  verdict: Verdict;
  /** How sure the named windows' comparisons are (./evaluation-uncertainty.ts); null when not asked for. */
  uncertainty: Record<WindowName, WindowUncertainty> | null;
}

function windowEvaluation(name: string, all: readonly EvaluatedDay[], w: DateWindow): WindowEvaluation {
  const days = all.filter((d) => inWindow(d.date, w));
  return {
    name,
    from: w.from,
    to: w.to,
    first_day: days[0]?.date ?? null,
    last_day: days.at(-1)?.date ?? null,
    days: days.length,
    years: yearsOf(days.length),
    strategies: Object.fromEntries(STRATEGIES.map((s) => [s, strategyFigures(days, s)])) as PerStrategy<StrategyFigures>,
    regime_share: regimeShares(days),
  };
}

const above = (a: number | null, b: number | null): boolean => a !== null && b !== null && a > b;
const notBelow = (a: number | null, b: number | null): boolean => a !== null && b !== null && a >= b;

export function verdictOf(windows: Record<WindowName, WindowEvaluation>): Verdict {
  const f = windows.full.strategies;
  const o = windows.out_of_sample.strategies;
  const full = { sharpe_ahead: above(f.regime.sharpe, f.ma200.sharpe), calmar_ahead: above(f.regime.calmar, f.ma200.calmar) };
  const out = { sharpe_not_behind: notBelow(o.regime.sharpe, o.ma200.sharpe), calmar_not_behind: notBelow(o.regime.calmar, o.ma200.calmar) };
  return { full, out_of_sample: out, holds: full.sharpe_ahead && full.calmar_ahead && out.sharpe_not_behind && out.calmar_not_behind };
}

/**
 * The evaluation of `days` (published regimes, oldest first) on `market` (prices by date), net of `costBps` basis
 * points per unit of exposure change: `window` is the full window (default 2007-01-01 to 2025-12-31); in-sample
 * and out-of-sample are their parts of it. With `statistics`, also how sure the comparisons are.
 */
export function evaluate(
  days: readonly RegimeDay[],
  market: readonly MarketDay[],
  window: Partial<DateWindow>,
  costBps: number,
  statistics: StatisticsInputs | null = null,
  only: ReadonlySet<string> | null = null,
): Evaluation {
  // `only`: the trading days that may be evaluated (the live record's, ./live-days.ts); every strategy is judged on the same days.
  const all = evaluationDays(days, market, costBps).filter((d) => only === null || only.has(d.date));
  const full = fullWindow(window);
  const windows = Object.fromEntries(
    WINDOW_NAMES.map((name) => [name, windowEvaluation(name, all, name === 'full' ? full : intersect(EVALUATION_WINDOWS[name], full))]),
  ) as Record<WindowName, WindowEvaluation>;
  const years = [...new Set(all.filter((d) => inWindow(d.date, full)).map((d) => d.date.slice(0, 4)))].map((year) =>
    windowEvaluation(year, all, intersect({ from: `${year}-01-01`, to: `${year}-12-31` }, full)),
  );
  return {
    cost_bps: costBps,
    evaluable: { first_day: all[0]?.date ?? null, last_day: all.at(-1)?.date ?? null, days: all.length },
    windows,
    years,
    verdict: verdictOf(windows),
    uncertainty: statistics === null ? null : evaluationUncertainty(all, windows, statistics),
  };
}
