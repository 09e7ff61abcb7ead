/**
 * How the published performance trades (pipeline/reports/execution.ts, strategy.ts), on days whose answers are
 * worked out by hand here: each regime taken at the first SPY open after its publication instant (06:30 New
 * York on the next NYSE trading day), a day's return made of the overnight gap at the exposure held and the day
 * at the exposure taken at the open, the cost on each change of exposure, the first position free, and the
 * Thanksgiving holiday bridged by the gap from Wednesday's close to Friday's open.
 */
import { describe, expect, it } from 'vitest';
import { costOf, dayReturn, execute, type PriceDay } from '../../../pipeline/reports/execution.js';
import { executionDay, regimePositions, strategyDays, type MarketDay, type RegimeDay } from '../../../pipeline/reports/strategy.js';

const COST_BPS = 5;
const day = (date: string, regime: RegimeDay['regime']): RegimeDay => ({ date, regime, risk_score: 0.5 });

describe('when a published regime is traded', () => {
  it("a regime published on a Friday (06:30 New York) trades that Friday's open; the regime of a Friday, published on Monday, trades Monday's open", () => {
    // The regime of Wednesday 2025-11-26 is published on Friday 2025-11-28 at 06:30 EST (Thanksgiving is closed).
    expect(executionDay({ date: '2025-11-26' })).toBe('2025-11-28');
    // The regime of Friday 2025-11-28 is published on Monday 2025-12-01 at 06:30 and taken at its 09:30 open.
    expect(executionDay({ date: '2025-11-28' })).toBe('2025-12-01');
    expect(executionDay({ date: '2025-11-28', available_at: '2025-12-01T11:30:00.000Z' })).toBe('2025-12-01');
  });

  it('takes a regime published after an open at the next one: the first open at or after available_at', () => {
    // 10:00 New York on Monday 2025-12-01 is after its open: the next open is Tuesday's.
    expect(executionDay({ date: '2025-11-28', available_at: '2025-12-01T15:00:00.000Z' })).toBe('2025-12-02');
    // Exactly at the open (09:30 EST = 14:30 UTC) is still that open.
    expect(executionDay({ date: '2025-11-28', available_at: '2025-12-01T14:30:00.000Z' })).toBe('2025-12-01');
  });

  it('holds, on each trading day, the newest regime taken at or before its open; nothing before the first', () => {
    const days = [day('2025-11-25', 'expansion'), day('2025-11-26', 'tightening'), day('2025-11-28', 'risk_off')];
    expect(regimePositions(days, ['2025-11-25', '2025-11-26', '2025-11-28', '2025-12-01', '2025-12-02'])).toEqual([
      undefined,
      'expansion',
      'tightening',
      'risk_off',
      'risk_off',
    ]);
  });
});

describe("a day's return", () => {
  it('is (1 + e_gap·g)(1 + e_day·d)(1 − c·|e_day − e_gap|) − 1', () => {
    expect(costOf(5)).toBe(0.0005);
    // Out overnight (e_gap 0) on a +1 % gap, in (1) on a −2 % day, a change of 1 at 5 bp: 0.98 × 0.9995 − 1.
    expect(dayReturn(0, 1, 0.01, -0.02, 1, 0.0005)).toBeCloseTo(0.98 * 0.9995 - 1, 15);
    expect(() => costOf(-1)).toThrow(RangeError);
    expect(() => costOf(Number.NaN)).toThrow(RangeError);
  });

  it('execute: the first position is free and held overnight into the next day; a day without a price is skipped', () => {
    const prices: PriceDay[] = [
      { date: 'a', spy_open: 99, spy_close: 100 },
      { date: 'b', spy_open: 101, spy_close: 101 },
      { date: 'c', spy_open: null, spy_close: 103 },
      { date: 'd', spy_open: 103, spy_close: 103 },
    ];
    const days = execute(prices, (i) => [undefined, 1, 0.5, 0][i], COST_BPS);
    expect(days.map((d) => d.date)).toEqual(['b', 'd']);
    // b: bought at its open, free: only the day (0 %) counts, not the gap (+1 %) before the position.
    expect(days[0]).toEqual({ date: 'b', exposure_gap: 0, exposure: 1, traded: 0, return: 0 });
    // d: held 0.5 overnight from c (c's open missing, so c has no return), sold to 0 at d's open.
    expect(days[1]!.exposure_gap).toBe(0.5);
    expect(days[1]!.traded).toBe(0.5);
    expect(days[1]!.return).toBeCloseTo(1 - 0.0005 * 0.5 - 1, 15);
  });
});

describe('strategyDays, worked by hand over Thanksgiving 2025 at 5 bp', () => {
  // Regimes: 11-25 expansion (1), 11-26 tightening (0.25), 11-28 tightening, 12-01 risk_off (0), 12-02 expansion.
  const days = [
    day('2025-11-25', 'expansion'),
    day('2025-11-26', 'tightening'),
    day('2025-11-28', 'tightening'),
    day('2025-12-01', 'risk_off'),
    day('2025-12-02', 'expansion'),
  ];
  // Gaps and days: 11-26 +1 %, +1 %; 11-28 (after the holiday) −2 %, +3 %; 12-01 +1 %, −5 %; 12-02 −1 %, +2 %.
  const c0 = 100;
  const o1 = c0 * 1.01;
  const c1 = o1 * 1.01;
  const o2 = c1 * 0.98;
  const c2 = o2 * 1.03;
  const o3 = c2 * 1.01;
  const c3 = o3 * 0.95;
  const o4 = c3 * 0.99;
  const c4 = o4 * 1.02;
  const prices: Array<[string, number, number]> = [
    ['2025-11-25', 99, c0],
    ['2025-11-26', o1, c1],
    ['2025-11-28', o2, c2],
    ['2025-12-01', o3, c3],
    ['2025-12-02', o4, c4],
  ];
  const market = new Map<string, MarketDay>(prices.map(([date, spy_open, spy_close]) => [date, { date, spy_open, spy_close, gld_close: null }]));
  const s = strategyDays(days, market, COST_BPS);

  it('takes each regime at the next open and holds it overnight into the day after', () => {
    expect(s.map((d) => d.date)).toEqual(['2025-11-26', '2025-11-28', '2025-12-01', '2025-12-02']);
    expect(s.map((d) => d.held)).toEqual(['expansion', 'tightening', 'tightening', 'risk_off']);
    expect(s.map((d) => d.exposure)).toEqual([1, 0.25, 0.25, 0]);
    expect(s.map((d) => d.exposure_gap)).toEqual([0, 1, 0.25, 0.25]);
    expect(s.map((d) => d.traded)).toEqual([0, 0.75, 0, 0.25]);
  });

  it('earns the gap at the exposure held and the day at the exposure taken, less 5 bp per unit of change', () => {
    const expected = [
      // 11-26: the first position (1), free; cash over the night before it: 1.01 − 1.
      0.01,
      // 11-28: 1 over Wednesday night and Thanksgiving (−2 %), 0.25 on the day (+3 %), 0.75 sold at 5 bp:
      // 0.98 × 1.0075 × 0.999625 − 1 = 0.98697974375 − 1.
      -0.01302025625,
      // 12-01: 0.25 overnight (+1 %) and on the day (−5 %), no trade: 1.0025 × 0.9875 − 1 = 0.98996875 − 1.
      -0.01003125,
      // 12-02: 0.25 overnight (−1 %), 0 on the day, 0.25 sold at 5 bp: 0.9975 × 0.999875 − 1 = 0.9973753125 − 1.
      -0.0026246875,
    ];
    s.forEach((d, i) => expect(d.strategy, d.date).toBeCloseTo(expected[i]!, 14));
  });

  it('buys and holds SPY from the same first open: open to close on the first day, then close to close, no cost', () => {
    const expected = [0.01, 0.98 * 1.03 - 1, 1.01 * 0.95 - 1, 0.99 * 1.02 - 1];
    s.forEach((d, i) => expect(d.market, d.date).toBeCloseTo(expected[i]!, 14));
  });
});
