/**
 * What a run computes for quants and analysts from the whole history it publishes: the forecast, the
 * performance of the regime strategy against buy-and-hold, and the chart data of the last 730 days. The run
 * publishes them in the same transaction as the regimes (../../src/signals/publish/publish.ts), so readers only read.
 * Pure: the history (published days and the run's new ones, oldest first), their prices, the clock and the cost
 * per unit of exposure change (basis points, `SIGNAL_COST_BPS`) in.
 */
import type { Regime } from '../../src/core/vocabulary.js';
import { MIN_OBSERVATIONS } from '../forecast/series.js';
import { chartData, type ChartData } from './chart.js';
import { forecastFromHistory, type ForecastHistoryDay, type ForecastResult } from './forecast.js';
import { performanceReport, type PerformanceReport } from './performance.js';
import { strategyDays, type MarketDay } from './strategy.js';

export interface HistoryDay extends ForecastHistoryDay {
  regime: Regime;
  /** When the day's regime was published (ISO-8601 UTC); null for days published before release-time data. */
  available_at: string | null;
}

export interface Reports {
  /** Null when the history is too short to fit (fewer than MIN_OBSERVATIONS days). */
  forecast: ForecastResult | null;
  performance: PerformanceReport;
  chart: ChartData;
  notes: string[];
}

export function buildReports(history: readonly HistoryDay[], market: readonly MarketDay[], generatedAt: Date, costBps: number): Reports {
  const strategy = strategyDays(history, new Map(market.map((m) => [m.date, m])), costBps);
  const notes: string[] = [];
  // Days published before SPY's opens were (migration 0020) have none until a full run republishes them: they
  // earn no return, so the report says how many rather than leaving them out unseen.
  const noOpen = market.filter((m) => m.spy_close != null && m.spy_open == null);
  if (noOpen.length > 0)
    notes.push(
      `${noOpen.length} published days (${noOpen[0]!.date} to ${noOpen.at(-1)!.date}) have no SPY open and no strategy return: a full run (\`tradeseal pipeline run --full\`) republishes them with it`,
    );
  let forecast: ForecastResult | null = null;
  if (history.length >= MIN_OBSERVATIONS) forecast = forecastFromHistory(history, generatedAt);
  else notes.push(`no forecast: the history has ${history.length} days, a fit needs ${MIN_OBSERVATIONS}`);
  return { forecast, performance: performanceReport(strategy, costBps), chart: chartData(history, strategy), notes };
}
