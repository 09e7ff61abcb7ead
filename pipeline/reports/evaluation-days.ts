/**
 * The days on which the published regimes are judged, with the exposure of each of three strategies on the
 * base instrument (SPY, dividend-adjusted):
 *
 * - **regime**: the interface's regime strategy, the exposure of the regime published the day before
 *   (expansion 1, recovery 0.75, tightening 0.25, risk_off 0), as `strategyDays` (./strategy.ts) computes it;
 * - **ma200**: the 200-day moving-average rule (./moving-average.ts): 1 when the close of the day before is above
 *   the mean of the 200 closes ending on it, else 0;
 * - **buy_and_hold**: exposure 1.
 *
 * A day is evaluated when it is a day of the regime strategy (a regime published the day before, both closes)
 * and the day before it has 200 closes up to it, so the three strategies always cover exactly the same days.
 * Each day's return is its exposure times the instrument's simple return from the day before's close.
 *
 * Trading is counted between consecutive evaluated days: `traded` is |exposure − the exposure of the evaluated
 * day before| and `changed` whether the position changed (the regime strategy: the regime it holds, that is a
 * change of the published regime; the 200-day rule: in or out; buy-and-hold never). The first evaluated day
 * has neither: taking the first position is not trading.
 *
 * Pure: published days (oldest first) and closes in, days out.
 */
import type { Regime } from '../../src/engine/vocabulary.js';
import { aboveMovingAverage } from './moving-average.js';
import { strategyDays, type MarketDay, type RegimeDay } from './strategy.js';

export const STRATEGIES = ['regime', 'ma200', 'buy_and_hold'] as const;
export type StrategyName = (typeof STRATEGIES)[number];
export type PerStrategy<T> = Record<StrategyName, T>;

export interface EvaluatedDay {
  date: string;
  /** The regime published on this day (it sets the next day's exposure). */
  regime: Regime;
  /** The regime published the day before: it sets this day's exposure. */
  held: Regime;
  /** The instrument's simple return from the day before's close. */
  market: number;
  exposure: PerStrategy<number>;
  /** exposure × market. */
  returns: PerStrategy<number>;
  /** |exposure − the exposure of the evaluated day before|; 0 on the first evaluated day. */
  traded: PerStrategy<number>;
  /** Whether the position differs from the evaluated day before; false on the first evaluated day. */
  changed: PerStrategy<boolean>;
}

const perStrategy = <T>(f: (s: StrategyName) => T): PerStrategy<T> => ({ regime: f('regime'), ma200: f('ma200'), buy_and_hold: f('buy_and_hold') });

export function evaluationDays(days: readonly RegimeDay[], market: readonly MarketDay[]): EvaluatedDay[] {
  const regimeOf = new Map(days.map((d) => [d.date, d.regime]));
  const dayBefore = new Map(days.map((d, i) => [d.date, i > 0 ? days[i - 1]!.date : null]));
  const trend = aboveMovingAverage(market);
  const out: EvaluatedDay[] = [];
  for (const s of strategyDays(days, new Map(market.map((m) => [m.date, m])))) {
    const before = dayBefore.get(s.date);
    const signal = before == null ? undefined : trend.get(before);
    if (signal === undefined) continue;
    const exposure: PerStrategy<number> = { regime: s.exposure, ma200: signal, buy_and_hold: 1 };
    const prev = out.at(-1);
    out.push({
      date: s.date,
      regime: regimeOf.get(s.date)!,
      held: s.held,
      market: s.market,
      exposure,
      returns: perStrategy((k) => exposure[k] * s.market),
      traded: perStrategy((k) => (prev ? Math.abs(exposure[k] - prev.exposure[k]) : 0)),
      changed: {
        regime: prev !== undefined && s.held !== prev.held,
        ma200: prev !== undefined && signal !== prev.exposure.ma200,
        buy_and_hold: false,
      },
    });
  }
  return out;
}
