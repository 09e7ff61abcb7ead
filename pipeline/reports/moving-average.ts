/**
 * The 200-day moving-average rule (Faber, "A Quantitative Approach to Tactical Asset Allocation", 2007), the
 * simple trend rule a regime signal has to beat: hold the instrument (exposure 1) from the open of day t when the
 * close of day t − 1 is above the mean of the 200 closes ending on day t − 1 (that close included), else hold
 * nothing (exposure 0). Like the regime strategy it trades at the first price after what it knows: the close of
 * t − 1 is known at that close, so the position is taken at the open of t (./execution.ts), with the same cost.
 * "Above" is strict: a close equal to its mean is out.
 *
 * Pure: closes in; for each day that has `length` closes up to and including it, whether its close is above
 * their mean. The mean is summed afresh for each day (no running sum), so it carries no accumulated rounding.
 */
import type { MarketDay } from './strategy.js';

export const MOVING_AVERAGE_DAYS = 200;

/**
 * By date, 1 when the day's close is above the mean of the `length` closes ending on it, else 0. Days without a
 * close are not closes (they neither count nor get a signal); days with fewer than `length` closes up to them
 * get none.
 */
export function aboveMovingAverage(market: Iterable<MarketDay>, length = MOVING_AVERAGE_DAYS): Map<string, 0 | 1> {
  if (!Number.isInteger(length) || length < 1) throw new RangeError(`a moving average needs a whole number of days ≥ 1, got ${length}`);
  const closes = [...market]
    .filter((m): m is MarketDay & { spy_close: number } => m.spy_close !== null && Number.isFinite(m.spy_close))
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const out = new Map<string, 0 | 1>();
  for (let i = length - 1; i < closes.length; i++) {
    let sum = 0;
    for (let j = i - length + 1; j <= i; j++) sum += closes[j]!.spy_close;
    out.set(closes[i]!.date, closes[i]!.spy_close > sum / length ? 1 : 0);
  }
  return out;
}
