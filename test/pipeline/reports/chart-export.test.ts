/**
 * The chart data (the last 730 days from 100, the `stats` block) and the CSV export's text, on hand-made days:
 * values compounded from the window's first day, the strategy net of its cost, a missing gold close keeping the value, the column order and
 * full-precision numbers of the export.
 */
import { describe, expect, it } from 'vitest';
import { chartData } from '../../../pipeline/reports/chart.js';
import { exportCsv } from '../../../pipeline/reports/export.js';
import { strategyDays, type MarketDay, type RegimeDay } from '../../../pipeline/reports/strategy.js';

const days: RegimeDay[] = [
  { date: '2024-01-02', regime: 'expansion', risk_score: 0.1 },
  { date: '2024-01-03', regime: 'expansion', risk_score: 0.2 },
  { date: '2024-01-04', regime: 'tightening', risk_score: 0.6 },
  { date: '2024-01-05', regime: 'tightening', risk_score: 0.7 },
];
// Each open is the close before, so a day's SPY return is close to close.
const market = new Map<string, MarketDay>([
  ['2024-01-02', { date: '2024-01-02', spy_open: 100, spy_close: 100, gld_close: 50 }],
  ['2024-01-03', { date: '2024-01-03', spy_open: 100, spy_close: 102, gld_close: null }],
  ['2024-01-04', { date: '2024-01-04', spy_open: 102, spy_close: 96.9, gld_close: 51 }],
  ['2024-01-05', { date: '2024-01-05', spy_open: 96.9, spy_close: 101.745, gld_close: 52 }],
]);

describe('chartData', () => {
  const strategy = strategyDays(days, market, 5);

  it("starts every series at 100 on the window's first day and compounds the days after it", () => {
    const c = chartData(days, strategy, 3);
    expect(c.days).toBe(3);
    expect(c.series.map((r) => r.date)).toEqual(['2024-01-03', '2024-01-04', '2024-01-05']);
    expect(c.series[0]).toMatchObject({ equity500: 100, gold: 100, strategy: 100, regime: 'expansion', risk_score: 0.2 });
    // 01-04: SPY −5 %, 01-03's expansion (1) taken at the open, no change; 01-05: SPY +5 %, 01-04's tightening
    // (0.25) taken at the open, 0.75 sold at 5 bp.
    expect(c.series[1]!.equity500).toBeCloseTo(95, 12);
    expect(c.series[1]!.strategy).toBeCloseTo(95, 12);
    expect(c.series[2]!.equity500).toBeCloseTo(95 * 1.05, 12);
    expect(c.series[2]!.strategy).toBeCloseTo(95 * 1.0125 * 0.999625, 12);
    // Gold has no close on 01-03, so no return on 01-04: its value holds, then moves on 01-05.
    expect(c.series[1]!.gold).toBe(100);
    expect(c.series[2]!.gold).toBeCloseTo(100 * (52 / 51), 12);
    expect(c.stats).toMatchObject({ total_days: 3, avg_persistence_days: 1.5, regime_distribution: { expansion: 100 / 3, tightening: 200 / 3 } });
    expect(c.stats.max_drawdown).toBeCloseTo(-0.05, 12);
  });
});

describe('exportCsv', () => {
  it("writes the interface's columns in order, the exposure as a number, numbers in full, then available_at", () => {
    const text = exportCsv([
      {
        date: '2024-01-05',
        regime: 'tightening',
        risk_score: 0.7000000000000001,
        prob_expansion: 1e-18,
        prob_recovery: 0.1,
        prob_tightening: 0.8,
        prob_risk_off: 0.09999999999999999,
        available_at: '2024-01-08T11:30:00.000Z',
      },
      {
        date: '2024-01-04',
        regime: 'tightening',
        risk_score: 0.7,
        prob_expansion: 0,
        prob_recovery: 0.1,
        prob_tightening: 0.8,
        prob_risk_off: 0.1,
        available_at: null,
      },
    ]);
    expect(text).toBe(
      'date,regime,risk_score,equity_exposure,prob_expansion,prob_recovery,prob_tightening,prob_risk_off,available_at\n' +
        '2024-01-05,tightening,0.7000000000000001,0.25,1e-18,0.1,0.8,0.09999999999999999,2024-01-08T11:30:00.000Z\n' +
        // A day published before release-time data has no available_at: an empty last field.
        '2024-01-04,tightening,0.7,0.25,0,0.1,0.8,0.1,\n',
    );
    expect(text.split('\n')[1]!.split(',').slice(2, 8).map(Number)).toEqual([0.7000000000000001, 0.25, 1e-18, 0.1, 0.8, 0.09999999999999999]);
  });
});
