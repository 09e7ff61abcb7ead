/**
 * The signal-quality evaluation (pipeline/reports/evaluate.ts and its parts) on series whose answers are known
 * without the code under test: closes built so that the 200-day rule's signal is known by construction, regime
 * changes, turnover and costs counted by hand, the windows and calendar years, figures derived from the values
 * empyrical's own test suite publishes (test/pipeline/performance/fixtures), and the 200-day rule and the
 * figures recomputed with plain arithmetic of this file on the bundled SPY opens and closes. The days are NYSE
 * trading days (SPY.csv's), as the regimes are taken at the open of the next one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluationDays, STRATEGIES } from '../../../pipeline/reports/evaluation-days.js';
import { EVALUATION_WINDOWS } from '../../../pipeline/reports/evaluation-windows.js';
import { evaluate } from '../../../pipeline/reports/evaluate.js';
import { aboveMovingAverage } from '../../../pipeline/reports/moving-average.js';
import type { MarketDay, RegimeDay } from '../../../pipeline/reports/strategy.js';
import type { Regime } from '../../../src/core/vocabulary.js';
import { expectAlmostEqual, reference, series } from '../performance/empyrical-fixture.js';

const REPO = path.resolve(import.meta.dirname, '../../..');
const COST_BPS = 5;
const SPY_ROWS = fs
  .readFileSync(path.join(REPO, 'data/macro/SPY.csv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => l.split(','));
/** `n` NYSE trading days from `from` on (or up to `to`), as SPY.csv has them. */
const tradingDays = (n: number, bound: { from: string } | { to: string }): string[] => {
  const all = SPY_ROWS.map((f) => f[0]!);
  if ('from' in bound) return all.filter((d) => d >= bound.from).slice(0, n);
  return all.filter((d) => d <= bound.to).slice(-n);
};

/** Each open is the close before (no overnight gap) unless `opens` are given. */
const marketOf = (dates: readonly string[], closes: ReadonlyArray<number | null>, opens?: ReadonlyArray<number | null>): MarketDay[] =>
  dates.map((date, i) => ({
    date,
    spy_open: opens ? (opens[i] ?? null) : (closes[i - 1] ?? closes[i] ?? null),
    spy_close: closes[i] ?? null,
    gld_close: null,
  }));
const regimesOf = (dates: readonly string[], regime: (i: number) => Regime): RegimeDay[] =>
  dates.map((date, i) => ({ date, regime: regime(i), risk_score: 0.5 }));
const flat = (n: number, close = 100): number[] => Array.from({ length: n }, () => close);

/**
 * 205 trading days, the last five of which (2016-12-27 to 2017-01-03) are the only ones with 200 closes before them.
 * Closes: 100 for 200 days (the 200th equals its mean: out), then 120 (above the mean of 100.1: in), 100 (below
 * 100.1: out), 100.1 (below the mean 100.1005: out), 100.2 (above 100.1015: in), 110.
 */
const DATES = tradingDays(205, { to: '2017-01-03' });
const CLOSES = [...flat(200), 120, 100, 100.1, 100.2, 110];
/** Published on the days 199 to 204: risk_off, expansion, expansion, tightening, recovery, recovery. */
const LATE: Regime[] = ['risk_off', 'expansion', 'expansion', 'tightening', 'recovery', 'recovery'];
const REGIMES = regimesOf(DATES, (i) => (i < 199 ? 'tightening' : LATE[i - 199]!));
const EVALUATED = ['2016-12-27', '2016-12-28', '2016-12-29', '2016-12-30', '2017-01-03'];

describe('the 200-day moving-average rule', () => {
  it('is in when the close is above the mean of the 200 closes ending on it, strictly, and has no signal before 200 closes', () => {
    const signal = aboveMovingAverage(marketOf(DATES, CLOSES));
    expect([...signal.keys()]).toEqual(DATES.slice(199, 204 + 1));
    expect([...signal.values()]).toEqual([0, 1, 0, 0, 1, 1]);
  });

  it('takes the closes in date order and skips a day without a close instead of counting it', () => {
    const closes = marketOf(DATES.slice(0, 202), [...flat(199), null, 90, 100]);
    // 199 closes of 100, none on day 199, then 90: the 200th close is day 200's, mean 99.95, 90 below it.
    const signal = aboveMovingAverage(closes.reverse(), 200);
    expect([...signal.entries()]).toEqual([
      [DATES[200], 0],
      [DATES[201], 1],
    ]);
  });
});

describe('the evaluated days', () => {
  const days = evaluationDays(REGIMES, marketOf(DATES, CLOSES), COST_BPS);

  it('are the days with 200 closes before them, the same for the three strategies, each net of 5 bp per unit traded', () => {
    expect(days.map((d) => d.date)).toEqual(EVALUATED);
    // No overnight gaps here: a day earns (1 + exposure × its return) less the cost of what was traded at its open.
    for (const d of days)
      for (const s of STRATEGIES) expect(d.returns[s], `${d.date} ${s}`).toBeCloseTo((1 + d.exposure[s] * d.market) * (1 - 0.0005 * d.traded[s]) - 1, 15);
    expect(days[0]!.market).toBeCloseTo(0.2, 14);
    // 2016-12-28: expansion bought (1) at the open before a fall of 1/6: (5/6) × 0.9995 − 1.
    expect(days[1]!.returns.regime).toBeCloseTo((5 / 6) * 0.9995 - 1, 15);
  });

  it("take the regime strategy's exposure from the regime published the day before, the first day too", () => {
    // The first evaluated day, 2016-12-27, holds risk_off, published on 2016-12-23, a day that is not evaluated.
    expect(days.map((d) => d.held)).toEqual(['risk_off', 'expansion', 'expansion', 'tightening', 'recovery']);
    expect(days.map((d) => d.regime)).toEqual(['expansion', 'expansion', 'tightening', 'recovery', 'recovery']);
    expect(days.map((d) => d.exposure.regime)).toEqual([0, 1, 1, 0.25, 0.75]);
  });

  it("take the 200-day rule's exposure from the close of the day before; buy-and-hold is always in", () => {
    expect(days.map((d) => d.exposure.ma200)).toEqual([0, 1, 0, 0, 1]);
    expect(days.map((d) => d.exposure.buy_and_hold)).toEqual([1, 1, 1, 1, 1]);
  });

  it('hold overnight the exposure taken at the open of the day before; all three start in cash', () => {
    expect(days.map((d) => d.exposure_gap.regime)).toEqual([0, 0, 1, 1, 0.25]);
    expect(days.map((d) => d.exposure_gap.ma200)).toEqual([0, 0, 1, 0, 0]);
    expect(days.map((d) => d.exposure_gap.buy_and_hold)).toEqual([0, 1, 1, 1, 1]);
  });

  it('count trading between consecutive evaluated days, none on the first', () => {
    expect(days.map((d) => d.traded.regime)).toEqual([0, 1, 0, 0.75, 0.5]);
    expect(days.map((d) => d.changed.regime)).toEqual([false, true, false, true, true]);
    expect(days.map((d) => d.traded.ma200)).toEqual([0, 1, 1, 0, 1]);
    expect(days.map((d) => d.changed.ma200)).toEqual([false, true, true, false, true]);
    expect(days.every((d) => d.traded.buy_and_hold === 0 && !d.changed.buy_and_hold)).toBe(true);
  });
});

describe('evaluate: windows, years and the figures of trading', () => {
  const e = evaluate(REGIMES, marketOf(DATES, CLOSES), {}, COST_BPS);

  it('defines the windows once: 2007 to 2025, split at the end of 2016', () => {
    expect(EVALUATION_WINDOWS).toEqual({
      full: { from: '2007-01-01', to: '2025-12-31' },
      in_sample: { from: '2007-01-01', to: '2016-12-31' },
      out_of_sample: { from: '2017-01-01', to: '2025-12-31' },
    });
  });

  it('averages exposure and annualises turnover and changes by days / 252, counted by hand', () => {
    const f = e.windows.full;
    expect(e.cost_bps).toBe(COST_BPS);
    expect(f).toMatchObject({ from: '2007-01-01', to: '2025-12-31', first_day: '2016-12-27', last_day: '2017-01-03', days: 5, years: 5 / 252 });
    // Turnover 1 + 0.75 + 0.5 = 2.25 and 3 changes of the held regime over 5/252 years.
    expect(f.strategies.regime.avg_exposure).toBeCloseTo(0.6, 15);
    expect(f.strategies.regime.turnover_per_year).toBeCloseTo((2.25 * 252) / 5, 10);
    expect(f.strategies.regime.changes_per_year).toBeCloseTo((3 * 252) / 5, 10);
    // In, out, in: 3 switches, each a turnover of 1.
    expect(f.strategies.ma200.avg_exposure).toBeCloseTo(0.4, 15);
    expect(f.strategies.ma200.turnover_per_year).toBeCloseTo((3 * 252) / 5, 10);
    expect(f.strategies.ma200.changes_per_year).toBeCloseTo((3 * 252) / 5, 10);
    expect(f.strategies.buy_and_hold).toMatchObject({ avg_exposure: 1, turnover_per_year: 0, changes_per_year: 0 });
  });

  it("splits the days into in-sample and out-of-sample and calendar years; a window's first day counts the change from the day before it", () => {
    expect(e.windows.in_sample).toMatchObject({ first_day: '2016-12-27', last_day: '2016-12-30', days: 4 });
    expect(e.windows.out_of_sample).toMatchObject({ first_day: '2017-01-03', last_day: '2017-01-03', days: 1 });
    expect(e.years.map((y) => [y.name, y.days])).toEqual([
      ['2016', 4],
      ['2017', 1],
    ]);
    // 2017-01-03 changes from tightening (held on 2016-12-30) to recovery: 0.5.
    expect(e.years[1]!.strategies.regime.turnover_per_year).toBeCloseTo((0.5 * 252) / 1, 10);
    expect(e.years[1]!.strategies.regime.changes_per_year).toBeCloseTo(252, 10);
    // 2016: risk_off → expansion (1), expansion → tightening (0.75): two changes over four days.
    expect(e.years[0]!.strategies.regime.turnover_per_year).toBeCloseTo((1.75 * 252) / 4, 10);
    expect(e.years[0]!.strategies.regime.changes_per_year).toBeCloseTo((2 * 252) / 4, 10);
  });

  it('gives the share of days on which each regime was published, per window and per year', () => {
    expect(e.years[0]!.regime_share).toEqual({ expansion: 0.5, recovery: 0.25, tightening: 0.25, risk_off: 0 });
    expect(e.years[1]!.regime_share).toEqual({ expansion: 0, recovery: 1, tightening: 0, risk_off: 0 });
    expect(e.windows.full.regime_share).toEqual({ expansion: 0.4, recovery: 0.4, tightening: 0.2, risk_off: 0 });
  });

  it('narrows every window to the bounds a caller gives; a window with no day has no figures', () => {
    const late = evaluate(REGIMES, marketOf(DATES, CLOSES), { from: '2017-01-01' }, COST_BPS);
    expect(late.windows.full).toMatchObject({ from: '2017-01-01', to: '2025-12-31', first_day: '2017-01-03', days: 1 });
    expect(late.windows.in_sample).toMatchObject({ from: '2017-01-01', to: '2016-12-31', first_day: null, days: 0 });
    expect(late.windows.in_sample.strategies.regime).toEqual({
      sharpe: null,
      cagr: null,
      max_drawdown: null,
      calmar: null,
      avg_exposure: null,
      turnover_per_year: null,
      changes_per_year: null,
    });
    expect(late.years.map((y) => y.name)).toEqual(['2017']);
    // The first day of the window still holds the regime of the day before it, and trades from it.
    expect(late.windows.full.strategies.regime.turnover_per_year).toBeCloseTo((0.5 * 252) / 1, 10);
    expect(late.evaluable).toEqual({ first_day: '2016-12-27', last_day: '2017-01-03', days: 5 });
  });
});

describe("the figures against empyrical's published values", () => {
  // 200 flat closes, then SPY moves by mixed_returns without its leading NaN: 1, 10, −4, 2, 3, 2, 1, −10 %.
  const moves = [...series('mixed_returns').slice(1)];
  const closes = [...flat(200)];
  for (const r of moves) closes.push(closes.at(-1)! * (1 + r));
  const dates = tradingDays(closes.length, { from: '2015-01-01' });
  // Without a cost and without overnight gaps, the daily returns are exactly empyrical's series.
  const e = evaluate(
    regimesOf(dates, () => 'tightening'),
    marketOf(dates, closes),
    { from: '2015-01-01' },
    0,
  ).windows.full;
  const cases = reference.cases as unknown as Record<
    string,
    { cases: Array<{ returns: string; risk_free?: number; period?: string; expected: number | string }> }
  >;
  const published = (figure: string): number =>
    cases[figure]!.cases.find((c) => c.returns === 'mixed_returns' && (c.risk_free ?? 0) === 0 && (c.period ?? 'daily') === 'daily')!.expected as number;

  it("buy-and-hold: empyrical's Sharpe ratio and max drawdown of mixed_returns, its annual return over 8 days instead of 9", () => {
    expect(e.days).toBe(8);
    const bh = e.strategies.buy_and_hold;
    // empyrical leaves the NaN out of the Sharpe ratio, but counts its row as a period in the annual return:
    // (1 + 1.91359…)^(9/8) − 1 is the same growth over 8 days.
    expectAlmostEqual(bh.sharpe, published('sharpe_ratio'));
    expectAlmostEqual(bh.max_drawdown, -0.1);
    const cagr = (1 + published('annual_return')) ** (9 / 8) - 1;
    expectAlmostEqual(bh.cagr, cagr);
    expectAlmostEqual(bh.calmar, cagr / 0.1);
  });

  it('a constant exposure of 0.25 (tightening every day) has the same Sharpe ratio and a quarter of each loss', () => {
    const regime = e.strategies.regime;
    expectAlmostEqual(regime.sharpe, published('sharpe_ratio'));
    // The deepest fall is the last day's: 0.25 × −10 %.
    expectAlmostEqual(regime.max_drawdown, -0.025);
    expect(regime.avg_exposure).toBe(0.25);
  });

  it('the 200-day rule misses the first day (a close equal to its mean) and holds the rest', () => {
    const ma = e.strategies.ma200;
    expect(ma.avg_exposure).toBe(7 / 8);
    const r = [0, ...moves.slice(1)];
    const mean = r.reduce((a, b) => a + b, 0) / r.length;
    const sd = Math.sqrt(r.reduce((a, b) => a + (b - mean) ** 2, 0) / (r.length - 1));
    expectAlmostEqual(ma.sharpe, (mean / sd) * Math.sqrt(252));
    expectAlmostEqual(ma.cagr, r.reduce((w, x) => w * (1 + x), 1) ** (252 / 8) - 1);
  });
});

describe('on the bundled SPY closes, against plain arithmetic', () => {
  const rows = SPY_ROWS;
  const dates = rows.map((f) => f[0]!);
  const open = rows.map((f) => Number(f[1]));
  const close = rows.map((f) => Number(f[4]));
  // Published regimes that change every 20 trading days, round the four.
  const cycle: Regime[] = ['expansion', 'tightening', 'risk_off', 'recovery'];
  const regimes = regimesOf(dates, (i) => cycle[Math.floor(i / 20) % 4]!);
  const days = evaluationDays(regimes, marketOf(dates, close, open), COST_BPS);
  const e = evaluate(regimes, marketOf(dates, close, open), { from: '1900-01-01', to: '2100-12-31' }, COST_BPS).windows.full;

  /** Exposure of day t by the 200-day rule, recomputed: the close of t − 1 against the mean of closes t − 200 … t − 1. */
  const ruleOn = (t: number): number => {
    const window = close.slice(t - 200, t);
    return close[t - 1]! > window.reduce((a, b) => a + b, 0) / 200 ? 1 : 0;
  };

  it('evaluates every day from the 201st close, each with the 200-day rule recomputed here', () => {
    expect(days).toHaveLength(dates.length - 200);
    expect(days[0]!.date).toBe(dates[200]);
    days.forEach((d, i) => {
      const t = i + 200;
      expect(d.date).toBe(dates[t]);
      expect(d.exposure.ma200, d.date).toBe(ruleOn(t));
    });
    // Out at the bottom of 2009, in during the calm rise of late 2017.
    expect(days.find((d) => d.date === '2009-03-09')!.exposure.ma200).toBe(0);
    expect(days.find((d) => d.date === '2017-12-01')!.exposure.ma200).toBe(1);
  });

  it("gives the 200-day rule's Sharpe ratio, CAGR, drawdown, exposure, turnover and switches as plain arithmetic does", () => {
    const exposure = days.map((_, i) => ruleOn(i + 200));
    // Held overnight at yesterday's exposure (cash before the first day), today's taken at the open, 5 bp a unit.
    const r = exposure.map((x, i) => {
      const t = i + 200;
      const held = i === 0 ? 0 : exposure[i - 1]!;
      const traded = i === 0 ? 0 : Math.abs(x - held);
      return (1 + held * (open[t]! / close[t - 1]! - 1)) * (1 + x * (close[t]! / open[t]! - 1)) * (1 - 0.0005 * traded) - 1;
    });
    const n = r.length;
    const mean = r.reduce((a, b) => a + b, 0) / n;
    const sd = Math.sqrt(r.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
    let wealth = 1;
    let peak = 1;
    let drawdown = 0;
    for (const x of r) {
      wealth *= 1 + x;
      peak = Math.max(peak, wealth);
      drawdown = Math.min(drawdown, wealth / peak - 1);
    }
    const switches = exposure.filter((x, i) => i > 0 && x !== exposure[i - 1]).length;
    const ma = e.strategies.ma200;
    expect(ma.sharpe).toBeCloseTo((mean / sd) * Math.sqrt(252), 10);
    expect(ma.cagr).toBeCloseTo(wealth ** (252 / n) - 1, 10);
    expect(ma.max_drawdown).toBeCloseTo(drawdown, 10);
    expect(ma.calmar).toBeCloseTo((wealth ** (252 / n) - 1) / -drawdown, 10);
    expect(ma.avg_exposure).toBeCloseTo(exposure.reduce((a, b) => a + b, 0) / n, 12);
    expect(ma.turnover_per_year).toBeCloseTo(switches / (n / 252), 10);
    expect(ma.changes_per_year).toBeCloseTo(switches / (n / 252), 10);
    expect(switches).toBeGreaterThan(50);
  });

  it('counts a change of the regime strategy each time the held regime changes: every 20 days here', () => {
    // A day holds the regime published the day before, so the held regime changes on days 201, 221, 241, …
    const changes = Math.floor((dates.length - 1 - 201) / 20) + 1;
    expect(e.strategies.regime.changes_per_year).toBeCloseTo(changes / (e.days / 252), 10);
    // tightening → risk_off (0.25), risk_off → recovery (0.75), recovery → expansion (0.25), expansion → tightening (0.75), …
    const turnover = 0.25 * Math.ceil(changes / 2) + 0.75 * Math.floor(changes / 2);
    expect(e.strategies.regime.turnover_per_year).toBeCloseTo(turnover / (e.days / 252), 10);
  });
});
