/**
 * The strategy's days that rest only on regimes logged live in the signal service's track log
 * (src/signals/track/leaf.ts): a day's return is made of the exposure held overnight (the regime taken at the
 * open before) and the exposure taken at its open (./strategy.ts), so it counts as live when the published days
 * both regimes came from had a live first leaf. A day resting on a backfilled regime, or on one published
 * before the log existed, is left out: what remains is what a subscriber could have traded from the live
 * record. Pure: the published days, the strategy's days over them and which published days were logged live in;
 * the live days, in order, out.
 */
import { regimeSourceIndexes, type RegimeDay, type StrategyDay } from './strategy.js';

/** For each of `dates` (oldest first), the published day whose regime is taken at its open: the newest of `days` executed on or before it. */
export const regimeSources = (days: readonly RegimeDay[], dates: readonly string[]): Array<string | undefined> =>
  regimeSourceIndexes(days, dates).map((k) => (k === undefined ? undefined : days[k]!.date));

export interface LiveSelection {
  /** The strategy's days resting only on live-logged regimes, in order. */
  live: StrategyDay[];
  /** How many of the strategy's days each kind of record they rest on: live, backfilled (or republished first), or not logged at all. */
  counts: { live: number; backfill: number; unlogged: number };
}

/**
 * Splits `strategy` (the strategy's days over `days`, as strategyDays gives them) by the record its regimes rest
 * on; `kinds` maps a published day to its first leaf's kind (absent: not logged).
 */
export function liveStrategyDays(days: readonly RegimeDay[], strategy: readonly StrategyDay[], kinds: ReadonlyMap<string, string>): LiveSelection {
  const dates = days.map((d) => d.date);
  const sources = regimeSources(days, dates);
  const at = new Map(dates.map((d, i) => [d, i]));
  const live: StrategyDay[] = [];
  const counts = { live: 0, backfill: 0, unlogged: 0 };
  for (const day of strategy) {
    const i = at.get(day.date);
    if (i === undefined) throw new RangeError(`the strategy's day ${day.date} is not a published day`);
    // The regime taken at this day's open, and the one held overnight into it (none on the strategy's first day).
    const rests = [sources[i], i > 0 ? sources[i - 1] : undefined].filter((s): s is string => s !== undefined);
    const of = rests.map((s) => kinds.get(s));
    if (of.some((k) => k === undefined)) counts.unlogged++;
    else if (of.every((k) => k === 'live')) {
      counts.live++;
      live.push(day);
    } else counts.backfill++;
  }
  return { live, counts };
}
