/**
 * The backtest summary of the interface over the regimes published between two dates: `total_days`,
 * `transitions` (days whose regime differs from the day before, within the window), `avg_persistence_days`
 * (days per run of one regime: total_days / (transitions + 1)), `mean_risk_score`, and `regime_distribution`
 * (the percentage of the window's trading days in each regime; the four add up to 100).
 * Pure: rows in, summary out. An empty window has zeros and an even distribution of nothing (all 0).
 */
import { type Regime, REGIMES } from '../../src/core/vocabulary.js';
import type { RegimeDay } from './strategy.js';

export interface BacktestSummary {
  total_days: number;
  transitions: number;
  avg_persistence_days: number;
  mean_risk_score: number;
  regime_distribution: Record<Regime, number>;
}

export function backtestSummary(days: readonly RegimeDay[]): BacktestSummary {
  const counts: Record<Regime, number> = { expansion: 0, recovery: 0, tightening: 0, risk_off: 0 };
  let transitions = 0;
  let risk = 0;
  days.forEach((d, i) => {
    counts[d.regime]++;
    risk += d.risk_score;
    if (i > 0 && d.regime !== days[i - 1]!.regime) transitions++;
  });
  const n = days.length;
  const pct = (k: number): number => (n === 0 ? 0 : (100 * k) / n);
  return {
    total_days: n,
    transitions,
    avg_persistence_days: n === 0 ? 0 : n / (transitions + 1),
    mean_risk_score: n === 0 ? 0 : risk / n,
    regime_distribution: Object.fromEntries(REGIMES.map((r) => [r, pct(counts[r])])) as Record<Regime, number>,
  };
}
