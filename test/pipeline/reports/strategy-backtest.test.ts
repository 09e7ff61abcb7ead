/**
 * The regime strategy and the backtest summary on hand-made days whose answers are worked out here: the
 * one-day lag (a regime sets the next day's exposure, never its own), the exposure weights of the interface,
 * a missing close skipped rather than bridged, and the summary's transitions, persistence and distribution.
 */
import { describe, expect, it } from 'vitest';
import { backtestSummary } from '../../../pipeline/reports/backtest.js';
import { cumulative, strategyDays, type MarketDay, type RegimeDay } from '../../../pipeline/reports/strategy.js';

const day = (date: string, regime: RegimeDay['regime'], risk_score = 0.5): RegimeDay => ({ date, regime, risk_score });
const market = (rows: Array<[string, number | null, number | null]>): Map<string, MarketDay> =>
  new Map(rows.map(([date, spy_close, gld_close]) => [date, { date, spy_close, gld_close }]));

describe('strategyDays', () => {
  const days = [day('2024-01-02', 'risk_off'), day('2024-01-03', 'expansion'), day('2024-01-04', 'tightening'), day('2024-01-05', 'recovery')];
  const closes = market([['2024-01-02', 100, 20], ['2024-01-03', 110, 21], ['2024-01-04', 99, null], ['2024-01-05', 108.9, 22]]);

  it('applies the exposure of the regime published the day before to each day\'s return', () => {
    const s = strategyDays(days, closes);
    expect(s.map((d) => d.date)).toEqual(['2024-01-03', '2024-01-04', '2024-01-05']);
    // 01-03: held risk_off (0) on +10 %; 01-04: held expansion (1) on −10 %; 01-05: held tightening (0.25) on +10 %.
    expect(s.map((d) => d.held)).toEqual(['risk_off', 'expansion', 'tightening']);
    expect(s.map((d) => d.exposure)).toEqual([0, 1, 0.25]);
    expect(s[0]!.market).toBeCloseTo(0.1, 15);
    expect(s.map((d) => d.strategy)).toEqual([0, s[1]!.market, 0.25 * s[2]!.market]);
    expect(s[1]!.strategy).toBeCloseTo(-0.1, 15);
    // Gold: missing on 01-04, so neither 01-04 nor 01-05 has a gold return.
    expect(s[0]!.gold).toBeCloseTo(0.05, 15);
    expect(Number.isNaN(s[1]!.gold) && Number.isNaN(s[2]!.gold)).toBe(true);
  });

  it('skips a day without a close instead of bridging the gap', () => {
    const gap = market([['2024-01-02', 100, null], ['2024-01-04', 99, null], ['2024-01-05', 108.9, null]]);
    expect(strategyDays(days, gap).map((d) => d.date)).toEqual(['2024-01-05']);
  });

  it('compounds returns from 100, a missing return leaving the value unchanged', () => {
    expect(cumulative([0.1, Number.NaN, -0.5])).toEqual([100, 110.00000000000001, 110.00000000000001, 55.00000000000001]);
  });
});

describe('backtestSummary', () => {
  it('counts days, transitions, persistence, mean risk and the distribution in percent', () => {
    const s = backtestSummary([
      day('2024-01-02', 'risk_off', 1), day('2024-01-03', 'risk_off', 0.8), day('2024-01-04', 'recovery', 0.3),
      day('2024-01-05', 'recovery', 0.2), day('2024-01-08', 'risk_off', 0.7),
    ]);
    expect(s).toEqual({
      total_days: 5, transitions: 2, avg_persistence_days: 5 / 3, mean_risk_score: 3 / 5,
      regime_distribution: { expansion: 0, recovery: 40, tightening: 0, risk_off: 60 },
    });
  });

  it('has zeros over an empty window', () => {
    expect(backtestSummary([])).toEqual({
      total_days: 0, transitions: 0, avg_persistence_days: 0, mean_risk_score: 0,
      regime_distribution: { expansion: 0, recovery: 0, tightening: 0, risk_off: 0 },
    });
  });
});
