/**
 * How every published performance figure trades: an exposure is taken at an open, marked to market at the
 * closes, and each change of exposure pays a cost. One function for the regime strategy, the 200-day rule and
 * buy-and-hold, so the three are judged on the same execution.
 *
 * **When a position is taken.** A target exposure decided from what is known at instant T is taken at the first
 * SPY open at or after T: for the regime of trading day t, T is its publication instant `available_at(t)`
 * (06:30 New York on the next NYSE trading day, ../release/publication.ts), so the exposure is taken at that
 * day's open (09:30): a regime published on a Friday trades Monday's open. For the 200-day rule, T is the close
 * of t, so it too trades the next open. The callers map each day to the exposure taken at its open.
 *
 * **One return per day.** With day s's gap g_s = open_s / close_{s−1} − 1 and its intraday return
 * d_s = close_s / open_s − 1 (on an ex-dividend day or a split the gap counts the cash and the new shares:
 * ./total-return.ts), the exposure e_gap held overnight into s (the one taken at the open of the day
 * before) and the exposure e_day taken at s's open, the day's return is
 *
 *     r_s = (1 + e_gap·g_s)(1 + e_day·d_s)(1 − c·|e_day − e_gap|) − 1,
 *
 * c the cost per unit of exposure change (basis points / 10 000; 5 bp by default, `SIGNAL_COST_BPS`). So
 * wealth goes from close to close: over the night at e_gap, then the trade at the open, then the day at e_day.
 *
 * **Constant mix.** An exposure is a fraction of wealth, held at that fraction: the drift of the fraction while
 * prices move is rebalanced away at no cost, and the cost is charged on the change of the target fraction only
 * (|e_day − e_gap| of the wealth at the open). For exposures 0 and 1 (buy-and-hold, the 200-day rule, the
 * risk_off and expansion regimes) nothing drifts and the formula is exact; for 0.25 and 0.75 it is the usual
 * daily-rebalanced approximation.
 *
 * **The first position.** Before the first day with an exposure the strategy holds cash: that day's e_gap is 0
 * and taking the first position is not counted as a trade (no cost, `traded` 0). A day needs its open, its
 * close and the close of the day before; a day without them has no return (it is skipped, not bridged).
 *
 * Pure: prices and exposures in, days out.
 */
import { gapReturn, intradayReturn, type TradedPrices } from './total-return.js';

/** One trading day's SPY prices as traded and its actions (./total-return.ts); null where there is none. */
export interface PriceDay extends TradedPrices {
  date: string;
}

export interface ExecutedDay {
  date: string;
  /** The exposure held overnight into the day (taken at the open of the day before; 0 before the first position). */
  exposure_gap: number;
  /** The exposure taken at the day's open and held to its close. */
  exposure: number;
  /** |exposure − exposure_gap|, the change paid for at the open; 0 for the first position. */
  traded: number;
  /** r_s of the formula above, net of the cost. */
  return: number;
}

/** The cost per unit of exposure change, from basis points to a fraction. */
export const costOf = (bps: number): number => {
  if (!Number.isFinite(bps) || bps < 0) throw new RangeError(`a cost is a number of basis points ≥ 0, got ${bps}`);
  return bps / 10_000;
};

/** r_s = (1 + e_gap·g)(1 + e_day·d)(1 − c·traded) − 1: the return of one day (see the module comment). */
export const dayReturn = (exposureGap: number, exposure: number, gap: number, intraday: number, traded: number, cost: number): number =>
  (1 + exposureGap * gap) * (1 + exposure * intraday) * (1 - cost * traded) - 1;

const priced = (x: number | null | undefined): x is number => x != null && Number.isFinite(x) && x > 0;

/**
 * The days of `prices` (oldest first, consecutive trading days) with a position: `exposureAt(i)` is the
 * exposure taken at the open of `prices[i]`, undefined while there is none yet. `costBps` per unit of change.
 */
export function execute(prices: readonly PriceDay[], exposureAt: (index: number) => number | undefined, costBps: number): ExecutedDay[] {
  const cost = costOf(costBps);
  const out: ExecutedDay[] = [];
  let held: number | undefined = prices.length > 0 ? exposureAt(0) : undefined;
  for (let i = 1; i < prices.length; i++) {
    const before = held;
    const exposure = exposureAt(i);
    held = exposure;
    if (exposure === undefined) continue;
    const prev = prices[i - 1]!;
    const day = prices[i]!;
    if (!priced(prev.spy_close) || !priced(day.spy_open) || !priced(day.spy_close)) continue;
    const exposureGap = before ?? 0;
    const traded = before === undefined ? 0 : Math.abs(exposure - before);
    const ret = dayReturn(
      exposureGap,
      exposure,
      gapReturn(prev.spy_close, day as PriceDay & { spy_open: number }),
      intradayReturn(day as { spy_open: number; spy_close: number }),
      traded,
      cost,
    );
    out.push({ date: day.date, exposure_gap: exposureGap, exposure, traded, return: ret });
  }
  return out;
}
