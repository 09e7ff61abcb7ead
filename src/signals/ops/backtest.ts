/**
 * A backtest of the published regimes between two dates, for the signal service's `POST /v1/backtest` and
 * `tradeseal signals backtest` alike: the interface's `summary` over the window's regimes, and the regime
 * strategy against buy-and-hold SPY over the window, executed as pipeline/reports/strategy.ts says (each
 * regime taken at the first open after its publication, net of the cost per unit of exposure change): the
 * strategy holds cash at the close before the window's first day and takes, at that day's open, the regime
 * published the trading day before it; with its performance figures and its cumulative value from 100. One indexed read (or none, from the service's cache of the
 * published history) and pure arithmetic (`npm run bench:quant` times it over the whole history).
 */
import type { Sql } from 'postgres';
import { notFound } from '../../core/errors.js';
import { backtestSummary, type BacktestSummary } from '../../../pipeline/reports/backtest.js';
import { performanceReport, type PerformanceReport } from '../../../pipeline/reports/performance.js';
import { cumulative, strategyDays, type MarketDay, type RegimeDay, type StrategyDay } from '../../../pipeline/reports/strategy.js';
import type { PublishedHistoryCache } from '../history-cache.js';
import { backtestRows, type DateRange } from '../store/quant.js';
import { checkDateRange } from './date-range.js';

export interface WindowStrategy {
  days: RegimeDay[];
  strategy: StrategyDay[];
  /** The day whose close the strategy starts from: the published day before the window, or the window's first. */
  base: string;
}

/**
 * The window's published regimes and the strategy's days over it; `not_found` when no day is published in it.
 * A long-running service passes its cache of the published history; a command reads the window once.
 */
export async function windowStrategy(sql: Sql, range: DateRange, costBps: number, cache?: PublishedHistoryCache): Promise<WindowStrategy> {
  checkDateRange(range.start, range.end);
  const { rows, before } = cache ? await cache.window(sql, range) : await backtestRows(sql, range);
  const days = before ? rows.slice(1) : rows;
  if (days.length === 0) {
    throw notFound(
      `no published day between ${range.start ?? 'the start'} and ${range.end ?? 'the end'}`,
      'see the published range with `tradeseal signals history`, or run the pipeline',
    );
  }
  const market = new Map<string, MarketDay>(rows.map((r) => [r.date, r]));
  return { days, strategy: strategyDays(rows, market, costBps), base: rows[0]!.date };
}

export interface Backtest {
  start: string;
  end: string;
  summary: BacktestSummary;
  performance: PerformanceReport;
  /** The cumulative value of the strategy and of buy-and-hold from 100 at the base day's close, then one point per day with a return. */
  curve: { dates: string[]; strategy: number[]; buy_and_hold: number[] };
  /** The strategy's days, oldest first: the daily series the figures are computed from. */
  days: StrategyDay[];
}

export async function backtest(sql: Sql, range: { start: string; end: string }, costBps: number, cache?: PublishedHistoryCache): Promise<Backtest> {
  const { days, strategy, base } = await windowStrategy(sql, range, costBps, cache);
  const dates = [base, ...strategy.map((s) => s.date)];
  return {
    start: range.start,
    end: range.end,
    summary: backtestSummary(days),
    performance: performanceReport(strategy, costBps),
    curve: { dates, strategy: cumulative(strategy.map((s) => s.strategy)), buy_and_hold: cumulative(strategy.map((s) => s.market)) },
    days: strategy,
  };
}
