/**
 * The strategy's days resting on the live record (pipeline/reports/live-days.ts): a day's return counts as live
 * only when the regime taken at its open and the one held overnight into it were both first logged live; its
 * figures are those of exactly those days' returns.
 */
import { describe, expect, it } from 'vitest';
import { chartData } from '../../pipeline/reports/chart.js';
import { liveStrategyDays, regimeSources } from '../../pipeline/reports/live-days.js';
import { performanceReport } from '../../pipeline/reports/performance.js';
import { strategyDays, type MarketDay, type RegimeDay } from '../../pipeline/reports/strategy.js';

const DATES = ['2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06', '2026-11-09', '2026-11-10', '2026-11-11', '2026-11-12', '2026-11-13'];
const REGIMES = ['expansion', 'risk_off', 'expansion', 'recovery', 'tightening', 'expansion', 'risk_off', 'recovery', 'expansion', 'expansion'] as const;
const days: RegimeDay[] = DATES.map((date, i) => ({ date, regime: REGIMES[i]!, risk_score: 0.5, available_at: null }));
const market = new Map<string, MarketDay>(DATES.map((date, i) => [date, { date, spy_open: 100 + i, spy_close: 100.5 + i + (i % 3) * 0.7, gld_close: null }]));

describe('the live record of the strategy', () => {
  it("takes each day's regime from the published day before it (its regime is taken at the next open)", () => {
    expect(regimeSources(days, DATES)).toEqual([undefined, ...DATES.slice(0, -1)]);
  });

  it('counts a day live only when the regimes taken at its open and held into it were both logged live', () => {
    const kinds = new Map(DATES.map((d) => [d, 'live']));
    kinds.set('2026-11-02', 'backfill');
    kinds.delete('2026-11-06');
    const strategy = strategyDays(days, market, 5);
    expect(strategy.map((s) => s.date)).toEqual(DATES.slice(1));
    const { live, counts } = liveStrategyDays(days, strategy, kinds);
    // 11-03 rests on 11-02 (backfill); 11-04 on 11-03 and 11-02; 11-09 on 11-06 (not logged), 11-10 on 11-09 and 11-06.
    expect(live.map((s) => s.date)).toEqual(['2026-11-05', '2026-11-06', '2026-11-11', '2026-11-12', '2026-11-13']);
    expect(counts).toEqual({ live: 5, backfill: 2, unlogged: 2 });
    // The chart of the live record: a day resting on anything else earns nothing, its lines flat.
    const chart = chartData(days, live);
    const flat = chart.series
      .filter((row, i) => i > 0 && row.strategy === chart.series[i - 1]!.strategy && row.equity500 === chart.series[i - 1]!.equity500)
      .map((r) => r.date);
    expect(flat).toEqual(['2026-11-03', '2026-11-04', '2026-11-09', '2026-11-10']);
    expect(chart.series.at(-1)!.strategy).toBeCloseTo(100 * live.reduce((w, s) => w * (1 + s.strategy), 1), 10);
    const report = performanceReport(live, 5);
    expect(report.days).toBe(5);
    expect(report.total_return).toBeCloseTo(live.reduce((w, s) => w * (1 + s.strategy), 1) - 1, 14);
  });

  it('leaves nothing live when nothing was logged live, and refuses a strategy day that is not a published day', () => {
    const strategy = strategyDays(days, market, 5);
    expect(liveStrategyDays(days, strategy, new Map(DATES.map((d) => [d, 'backfill'])))).toEqual({ live: [], counts: { live: 0, backfill: 9, unlogged: 0 } });
    expect(liveStrategyDays(days, strategy, new Map())).toEqual({ live: [], counts: { live: 0, backfill: 0, unlogged: 9 } });
    expect(() => liveStrategyDays(days.slice(0, 5), strategy, new Map())).toThrow(/not a published day/);
  });
});
