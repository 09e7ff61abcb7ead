/**
 * The regime strategy and the backtest summary on hand-made days whose answers are worked out here: each regime
 * taken at the next trading day's open (after its publication at 06:30 New York), never on its own day, the
 * exposure weights of the interface, the cost of 5 bp per unit of exposure change, a missing price skipped
 * rather than bridged, and the summary's transitions, persistence and distribution. (The execution itself,
 * gaps and holidays: execution.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { backtestSummary } from '../../../pipeline/reports/backtest.js';
import { cumulative, strategyDays, type MarketDay, type RegimeDay } from '../../../pipeline/reports/strategy.js';

const day = (date: string, regime: RegimeDay['regime'], risk_score = 0.5): RegimeDay => ({ date, regime, risk_score });
const market = (rows: Array<[string, number | null, number | null, number | null]>): Map<string, MarketDay> =>
  new Map(rows.map(([date, spy_open, spy_close, gld_close]) => [date, { date, spy_open, spy_close, gld_close }]));

describe('strategyDays', () => {
  // Tuesday 2024-01-02 to Friday 2024-01-05, four NYSE trading days; each open is the close before (no gap).
  const days = [day('2024-01-02', 'risk_off'), day('2024-01-03', 'expansion'), day('2024-01-04', 'tightening'), day('2024-01-05', 'recovery')];
  const prices = market([
    ['2024-01-02', 99, 100, 20],
    ['2024-01-03', 100, 110, 21],
    ['2024-01-04', 110, 99, null],
    ['2024-01-05', 99, 108.9, 22],
  ]);

  it("takes the regime published for the day before at each day's open, net of 5 bp per unit of change", () => {
    const s = strategyDays(days, prices, 5);
    expect(s.map((d) => d.date)).toEqual(['2024-01-03', '2024-01-04', '2024-01-05']);
    // 01-03: risk_off (0), the first position, free; 01-04: expansion (1) on −10 %, bought at 5 bp;
    // 01-05: tightening (0.25) on +10 %, 0.75 sold at 5 bp.
    expect(s.map((d) => d.held)).toEqual(['risk_off', 'expansion', 'tightening']);
    expect(s.map((d) => d.exposure)).toEqual([0, 1, 0.25]);
    expect(s.map((d) => d.traded)).toEqual([0, 1, 0.75]);
    expect(s[0]!.strategy).toBe(0);
    expect(s[1]!.strategy).toBeCloseTo(0.9 * 0.9995 - 1, 15);
    expect(s[2]!.strategy).toBeCloseTo(1.025 * 0.999625 - 1, 15);
    // Buy-and-hold: bought at 01-03's open, no cost: +10 %, −10 %, +10 %.
    expect(s[0]!.market).toBeCloseTo(0.1, 15);
    expect(s[1]!.market).toBeCloseTo(-0.1, 15);
    expect(s[2]!.market).toBeCloseTo(0.1, 15);
    // Gold: missing on 01-04, so neither 01-04 nor 01-05 has a gold return.
    expect(s[0]!.gold).toBeCloseTo(0.05, 15);
    expect(Number.isNaN(s[1]!.gold) && Number.isNaN(s[2]!.gold)).toBe(true);
  });

  it('is the plain exposure times the return without a cost', () => {
    const s = strategyDays(days, prices, 0);
    const expected = [0, s[1]!.market, 0.25 * s[2]!.market];
    s.forEach((d, i) => expect(d.strategy, d.date).toBeCloseTo(expected[i]!, 15));
  });

  it('skips a day without its prices instead of bridging the gap', () => {
    const gap = market([
      ['2024-01-02', 99, 100, null],
      ['2024-01-04', 99, 99, null],
      ['2024-01-05', 99, 108.9, null],
    ]);
    const s = strategyDays(days, gap, 5);
    expect(s.map((d) => d.date)).toEqual(['2024-01-05']);
    // Expansion, taken at 01-04's open (no price to mark it by), was held overnight into 01-05.
    expect(s[0]).toMatchObject({ held: 'tightening', exposure_gap: 1, exposure: 0.25, traded: 0.75 });
  });

  it('compounds returns from 100, a missing return leaving the value unchanged', () => {
    expect(cumulative([0.1, Number.NaN, -0.5])).toEqual([100, 110.00000000000001, 110.00000000000001, 55.00000000000001]);
  });
});

describe('backtestSummary', () => {
  it('counts days, transitions, persistence, mean risk and the distribution in percent', () => {
    const s = backtestSummary([
      day('2024-01-02', 'risk_off', 1),
      day('2024-01-03', 'risk_off', 0.8),
      day('2024-01-04', 'recovery', 0.3),
      day('2024-01-05', 'recovery', 0.2),
      day('2024-01-08', 'risk_off', 0.7),
    ]);
    expect(s).toEqual({
      total_days: 5,
      transitions: 2,
      avg_persistence_days: 5 / 3,
      mean_risk_score: 3 / 5,
      regime_distribution: { expansion: 0, recovery: 40, tightening: 0, risk_off: 60 },
    });
  });

  it('has zeros over an empty window', () => {
    expect(backtestSummary([])).toEqual({
      total_days: 0,
      transitions: 0,
      avg_persistence_days: 0,
      mean_risk_score: 0,
      regime_distribution: { expansion: 0, recovery: 0, tightening: 0, risk_off: 0 },
    });
  });
});
