/**
 * The 200-day moving-average rule (Faber, "A Quantitative Approach to Tactical Asset Allocation", 2007), the
 * simple trend rule a regime signal has to beat: hold the instrument (exposure 1) from the open of day t when the
 * close of day t − 1 is above the mean of the 200 closes ending on day t − 1 (that close included), else hold
 * nothing (exposure 0). Like the regime strategy it trades at the first price after what it knows: the close of
 * t − 1 is known at that close, so the position is taken at the open of t (./execution.ts), with the same cost.
 * "Above" is strict: a close equal to its mean is out.
 *
 * The closes are total-return closes in the basis of the day judged: the closes before an ex-dividend day or a
 * split are divided by its action factor (./total-return.ts), so neither a dividend's drop nor a split reads as a
 * fall. Each window is adjusted from its own last day, so a day's signal depends on its 200 days alone; on days
 * without an action the factor is exactly 1 and the closes are the prices as traded.
 *
 * Pure: closes in; for each day that has `length` closes up to and including it, whether its close is above
 * their mean. The mean is summed afresh for each day (no running sum), so it carries no accumulated rounding.
 */
import type { MarketDay } from './strategy.js';
import { actionFactor } from './total-return.js';

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
  const factors = new Float64Array(length);
  for (let i = length - 1; i < closes.length; i++) {
    // Each close divided by the product of the action factors of the days after it in the window (1 without
    // one), those products built newest first; then summed oldest first, as the plain sum was.
    let later = 1;
    for (let j = i; j > i - length; j--) {
      factors[i - j] = later;
      const day = closes[j]!;
      if ((day.spy_dividend ?? 0) !== 0 || (day.spy_split ?? 1) !== 1) later *= actionFactor(day);
    }
    let sum = 0;
    for (let j = i - length + 1; j <= i; j++) sum += closes[j]!.spy_close / factors[i - j]!;
    out.set(closes[i]!.date, closes[i]!.spy_close > sum / length ? 1 : 0);
  }
  return out;
}
