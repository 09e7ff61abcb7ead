/**
 * The regime strategy of the interface (docs/decisions/0035-backtest-and-performance.md), traded as a subscriber could
 * trade it: the regime of trading day t is published at `available_at(t)` (06:30 New York on the next NYSE
 * trading day, ../release/publication.ts), and its weight (expansion 1, recovery 0.75, tightening 0.25,
 * risk_off 0) is taken as SPY exposure at the first SPY open at or after that instant, the open of the next
 * trading day; it is held until the next published regime is taken at a later open. Buy-and-hold is exposure 1,
 * bought at the same first open. Both are marked to market at the closes and pay the cost per unit of exposure
 * change of ./execution.ts, which says how a day's return is made of the overnight gap, the open and the day.
 *
 * The honesty rule: a regime is never applied to a price that was set before it was published.
 *
 * Pure: published days (date, regime, and `available_at` when the store has it) and the instrument's prices in;
 * one row per day that holds a position and has its open, its close and the close of the day before, out.
 */
import type { Regime } from '../../src/core/vocabulary.js';
import { EXPOSURE } from '../regime/signals.js';
import { availableAt, firstOpenAfter } from '../release/publication.js';
import { execute, type PriceDay } from './execution.js';

export interface RegimeDay {
  date: string;
  regime: Regime;
  risk_score: number;
  /** The instant the day's regime was published (ISO-8601, UTC); `availableAt(date)` where a row does not carry it. */
  available_at?: string | null;
}

export interface MarketDay {
  date: string;
  /** The base instrument's open (SPY, as traded); null where there is none. */
  spy_open: number | null;
  /** The base instrument's close (SPY, as traded); null where there is none. */
  spy_close: number | null;
  /** SPY's cash dividend per share that went ex on the day (0 on other days; absent or null: 0). */
  spy_dividend?: number | null;
  /** SPY's split taking effect on the day, shares after per share before (1 on other days; absent or null: 1). */
  spy_split?: number | null;
  /** Gold's close (GLD, as traded; it pays no dividend); null before 2004-11-18. */
  gld_close: number | null;
}

export interface StrategyDay {
  date: string;
  /** The regime whose exposure was taken at this day's open: the newest one published before it. */
  held: Regime;
  /** The exposure taken at this day's open. */
  exposure: number;
  /** The exposure held overnight into this day (0 on the first day). */
  exposure_gap: number;
  /** |exposure − exposure_gap|, paid for at the open (0 on the first day). */
  traded: number;
  /** Buy-and-hold SPY's return on the day, executed the same way (close to close; open to close on the first day). */
  market: number;
  /** The regime strategy's return on the day, net of the cost. */
  strategy: number;
  /**
   * Gold's close-to-close simple return (a reference line, not traded), NaN where either close is missing. GLD has
   * never paid a dividend nor split; a split would show here as a fall, since `market_days` keeps no GLD action.
   */
  gold: number;
}

const executionDays = new Map<string, string>();

/** The trading day at whose open the regime of `day` is taken: the first open at or after its `available_at`. */
export function executionDay(day: Pick<RegimeDay, 'date' | 'available_at'>): string {
  const key = day.available_at ?? day.date;
  let out = executionDays.get(key);
  if (out === undefined) {
    // Memoised: a backtest over the whole history asks for about 5,000 days on every request.
    out = firstOpenAfter(day.available_at != null ? Date.parse(day.available_at) : availableAt(day.date));
    executionDays.set(key, out);
  }
  return out;
}

/**
 * For each of `dates` (trading days, oldest first), the index in `days` (published, oldest first) of the day whose
 * regime is taken at its open: the newest whose execution day is on or before it; undefined before the first.
 */
export function regimeSourceIndexes(days: readonly RegimeDay[], dates: readonly string[]): Array<number | undefined> {
  const out: Array<number | undefined> = [];
  let k = 0;
  for (const date of dates) {
    while (k < days.length && executionDay(days[k]!) <= date) k++;
    out.push(k === 0 ? undefined : k - 1);
  }
  return out;
}

/** For each of `dates`, the published regime whose exposure is taken at its open (./regimeSourceIndexes). */
export const regimePositions = (days: readonly RegimeDay[], dates: readonly string[]): Array<Regime | undefined> =>
  regimeSourceIndexes(days, dates).map((k) => (k === undefined ? undefined : days[k]!.regime));

/** The published days' prices, in their order (null prices where `market` has no row). */
export const pricesOf = (days: readonly { date: string }[], market: ReadonlyMap<string, MarketDay>): PriceDay[] =>
  days.map((d) => {
    const m = market.get(d.date);
    return {
      date: d.date,
      spy_open: m?.spy_open ?? null,
      spy_close: m?.spy_close ?? null,
      spy_dividend: m?.spy_dividend ?? null,
      spy_split: m?.spy_split ?? null,
    };
  });

/**
 * The strategy's days over `days` (published regimes, oldest first) and `market` (prices by date), with a cost
 * of `costBps` basis points per unit of exposure change. The first published day is the base: the strategy
 * holds cash at its close, and its regime is taken at the next day's open.
 */
export function strategyDays(days: readonly RegimeDay[], market: ReadonlyMap<string, MarketDay>, costBps: number): StrategyDay[] {
  const prices = pricesOf(days, market);
  const held = regimePositions(
    days,
    prices.map((p) => p.date),
  );
  const regime = execute(prices, (i) => (held[i] === undefined ? undefined : EXPOSURE[held[i]!]), costBps);
  const hold = new Map(execute(prices, (i) => (held[i] === undefined ? undefined : 1), costBps).map((d) => [d.date, d.return]));
  const index = new Map(days.map((d, i) => [d.date, i]));
  return regime.map((r) => {
    const i = index.get(r.date)!;
    const a = market.get(days[i - 1]!.date)?.gld_close;
    const b = market.get(r.date)?.gld_close;
    return {
      date: r.date,
      held: held[i]!,
      exposure: r.exposure,
      exposure_gap: r.exposure_gap,
      traded: r.traded,
      market: hold.get(r.date)!,
      strategy: r.return,
      gold: a != null && b != null ? b / a - 1 : Number.NaN,
    };
  });
}

/** Wealth from `start` through the returns: `start`, then one value per return. */
export function cumulative(returns: ArrayLike<number>, start = 100): number[] {
  const out = [start];
  let w = start;
  for (let i = 0; i < returns.length; i++) {
    const r = returns[i]!;
    if (Number.isFinite(r)) w *= 1 + r;
    out.push(w);
  }
  return out;
}
