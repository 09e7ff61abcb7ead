/**
 * Total returns from prices as traded and corporate actions, the way every published figure counts them.
 *
 * The market files keep a share's prices as it traded, with the cash dividend per share that went ex on each
 * day and the split that took effect on it (`../ingest/catalogue.ts`, layout `ohlcv_actions`). Adjusted prices
 * would do the same arithmetic in advance, but a vendor re-adjusts every past price on each ex-dividend day and
 * split, so a history kept in adjusted prices changes under the days already published; prices as traded never
 * change, and the returns are computed here, forward, from what was known on each day.
 *
 * The rule, for day s after day s − 1 (close C₋, open O, close C, dividend D, split ratio k shares after per
 * share before):
 *
 *     overnight (gap):  k · (O + D) / C₋ − 1   the share held at the close goes ex before the open: it becomes
 *                                               k shares worth O each, and D in cash per share;
 *     intraday:         C / O − 1
 *     close to close:   k · C · (1 + D / O) / C₋ − 1   the two legs chained: the cash reinvested at the open.
 *
 * A day without an action has D = 0 and k = 1, and each formula is then exactly the plain price ratio, bit for
 * bit (`k · C · 1 / C₋` rounds as `C / C₋` does): an index and a day without a dividend read as before.
 *
 * Pure.
 */

/** A day's prices as traded and its actions; a missing dividend is 0 and a missing split 1. */
export interface TradedPrices {
  spy_open: number | null;
  spy_close: number | null;
  /** Cash dividend per share that went ex on the day; 0 or null on other days. */
  spy_dividend?: number | null;
  /** Shares after per share before, for a split taking effect on the day; 1 or null on other days. */
  spy_split?: number | null;
}

const dividendOf = (day: TradedPrices): number => day.spy_dividend ?? 0;
const splitOf = (day: TradedPrices): number => day.spy_split ?? 1;

/** The overnight return into `day` from the previous close: k · (O + D) / C₋ − 1. Needs both prices. */
export const gapReturn = (previousClose: number, day: TradedPrices & { spy_open: number }): number =>
  (splitOf(day) * (day.spy_open + dividendOf(day))) / previousClose - 1;

/** The return from the open to the close of `day`. */
export const intradayReturn = (day: { spy_open: number; spy_close: number }): number => day.spy_close / day.spy_open - 1;

/** The close-to-close total return of `day`: k · C · (1 + D / O) / C₋ − 1 (the dividend reinvested at the open). */
export function closeReturn(previousClose: number, day: TradedPrices & { spy_close: number }): number {
  const dividend = dividendOf(day);
  // Without a dividend the open plays no part (and may be missing): the plain price ratio times the split.
  const reinvested = dividend === 0 ? 1 : 1 + dividend / (day.spy_open ?? Number.NaN);
  return (splitOf(day) * day.spy_close * reinvested) / previousClose - 1;
}

/**
 * What one unit of `day`'s price was worth in the previous day's shares: k · (1 + D / O). The factor that
 * turns a close before `day` into the basis of the prices from `day` on, dividing it (backward adjustment):
 * 1 on a day without an action.
 */
export function actionFactor(day: TradedPrices): number {
  const dividend = dividendOf(day);
  return splitOf(day) * (dividend === 0 ? 1 : 1 + dividend / (day.spy_open ?? Number.NaN));
}
