/**
 * What a run computes for quants and analysts from the whole history it publishes: the forecast, the
 * performance of the regime strategy against buy-and-hold, and the chart data of the last 730 days. The run
 * publishes them in the same transaction as the regimes (../publish/publish.ts), so readers only read.
 * Pure: the history (published days and the run's new ones, oldest first) and the clock in.
 */
import type { Regime } from '../../src/engine/vocabulary.js';
import { MIN_OBSERVATIONS } from '../forecast/series.js';
import { chartData, type ChartData } from './chart.js';
import { forecastFromHistory, type ForecastHistoryDay, type ForecastResult } from './forecast.js';
import { performanceReport, type PerformanceReport } from './performance.js';
import { strategyDays, type MarketDay } from './strategy.js';

export interface HistoryDay extends ForecastHistoryDay {
  regime: Regime;
}

export interface Reports {
  /** Null when the history is too short to fit (fewer than MIN_OBSERVATIONS days). */
  forecast: ForecastResult | null;
  performance: PerformanceReport;
  chart: ChartData;
  notes: string[];
}

export function buildReports(history: readonly HistoryDay[], market: readonly MarketDay[], generatedAt: Date): Reports {
  const strategy = strategyDays(history, new Map(market.map((m) => [m.date, m])));
  const notes: string[] = [];
  let forecast: ForecastResult | null = null;
  if (history.length >= MIN_OBSERVATIONS) forecast = forecastFromHistory(history, generatedAt);
  else notes.push(`no forecast: the history has ${history.length} days, a fit needs ${MIN_OBSERVATIONS}`);
  return { forecast, performance: performanceReport(strategy), chart: chartData(history, strategy), notes };
}
