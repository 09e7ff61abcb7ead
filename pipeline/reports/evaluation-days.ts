/**
 * The days on which the published regimes are judged, with the exposure of each of three strategies on the
 * base instrument (SPY, dividend-adjusted), all three executed alike (./execution.ts): an exposure is taken at
 * an open, held overnight into the next day, marked to market at the closes, and each change pays the cost:
 *
 * - **regime**: the interface's regime strategy, the weight of the newest regime published before the day's
 *   open (expansion 1, recovery 0.75, tightening 0.25, risk_off 0): the regime of day t is published at
 *   `available_at(t)`, 06:30 New York on the next trading day, and taken at that day's open (./strategy.ts);
 * - **ma200**: the 200-day moving-average rule (./moving-average.ts): known at the close of the day before,
 *   taken at the day's open: 1 when that close is above the mean of the 200 closes ending on it, else 0;
 * - **buy_and_hold**: exposure 1.
 *
 * A day is evaluated when the regime strategy holds a position on it, the day before has 200 closes up to it,
 * and the day has its open and close and the day before its close, so the three strategies always cover exactly
 * the same days. Each day's return is r_s of ./execution.ts, with the strategy's exposure taken at the day's
 * open and the one held overnight into it, net of `costBps` per unit of change.
 *
 * The three start together: each holds cash before the first evaluated day and takes its first position at
 * that day's open, which is not a trade. After it, `traded` is |exposure − the exposure held overnight| (the
 * change paid for at the open) and `changed` whether the position changed (the regime strategy: the regime it
 * holds, that is a change of the published regime; the 200-day rule: in or out; buy-and-hold never).
 *
 * Pure: published days (oldest first) and prices in, days out.
 */
import type { Regime } from '../../src/core/vocabulary.js';
import { EXPOSURE } from '../regime/signals.js';
import { execute, type PriceDay } from './execution.js';
import { aboveMovingAverage } from './moving-average.js';
import { pricesOf, regimePositions, type MarketDay, type RegimeDay } from './strategy.js';
import { closeReturn } from './total-return.js';

export const STRATEGIES = ['regime', 'ma200', 'buy_and_hold'] as const;
export type StrategyName = (typeof STRATEGIES)[number];
export type PerStrategy<T> = Record<StrategyName, T>;

export interface EvaluatedDay {
  date: string;
  /** The regime published on this day (it is taken at the next day's open). */
  regime: Regime;
  /** The regime whose exposure is taken at this day's open: the newest published before it. */
  held: Regime;
  /** SPY's close-to-close total return (the day before's close to this day's, ./total-return.ts). */
  market: number;
  /** The exposure taken at this day's open. */
  exposure: PerStrategy<number>;
  /** The exposure held overnight into this day (0 on the first evaluated day). */
  exposure_gap: PerStrategy<number>;
  /** The day's return, net of the cost (./execution.ts). */
  returns: PerStrategy<number>;
  /** |exposure − exposure_gap|, paid for at the open; 0 on the first evaluated day. */
  traded: PerStrategy<number>;
  /** Whether the position differs from the evaluated day before; false on the first evaluated day. */
  changed: PerStrategy<boolean>;
}

const perStrategy = <T>(f: (s: StrategyName) => T): PerStrategy<T> => ({ regime: f('regime'), ma200: f('ma200'), buy_and_hold: f('buy_and_hold') });

export function evaluationDays(days: readonly RegimeDay[], market: readonly MarketDay[], costBps: number): EvaluatedDay[] {
  const byDate = new Map(market.map((m) => [m.date, m]));
  const prices = pricesOf(days, byDate);
  const held = regimePositions(
    days,
    prices.map((p) => p.date),
  );
  const trend = aboveMovingAverage(market);
  // The exposure each strategy takes at the open of day i, on the evaluable days only.
  const ma = prices.map((_, i) => (i > 0 ? trend.get(prices[i - 1]!.date) : undefined));
  const evaluable = prices.map((p, i) => {
    const before = prices[i - 1];
    return held[i] !== undefined && ma[i] !== undefined && before?.spy_close != null && p.spy_open != null && p.spy_close != null;
  });
  const target: PerStrategy<(i: number) => number | undefined> = {
    regime: (i) => (evaluable[i] ? EXPOSURE[held[i]!] : undefined),
    ma200: (i) => (evaluable[i] ? ma[i] : undefined),
    buy_and_hold: (i) => (evaluable[i] ? 1 : undefined),
  };
  const executed = perStrategy((k) => execute(prices, target[k], costBps));
  const index = new Map(prices.map((p, i) => [p.date, i]));
  const regimeOf = new Map(days.map((d) => [d.date, d.regime]));
  const out: EvaluatedDay[] = [];
  executed.regime.forEach((r, n) => {
    const i = index.get(r.date)!;
    const at = perStrategy((k) => executed[k][n]!);
    const prev = out.at(-1);
    out.push({
      date: r.date,
      regime: regimeOf.get(r.date)!,
      held: held[i]!,
      market: closeReturn(prices[i - 1]!.spy_close!, prices[i] as PriceDay & { spy_close: number }),
      exposure: perStrategy((k) => at[k].exposure),
      exposure_gap: perStrategy((k) => at[k].exposure_gap),
      returns: perStrategy((k) => at[k].return),
      traded: perStrategy((k) => at[k].traded),
      changed: {
        regime: prev !== undefined && held[i] !== prev.held,
        ma200: prev !== undefined && at.ma200.exposure !== prev.exposure.ma200,
        buy_and_hold: false,
      },
    });
  });
  return out;
}
