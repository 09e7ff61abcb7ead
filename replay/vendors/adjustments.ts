/**
 * The adjustments market vendors apply to as-traded bars, so the local servers can serve what the vendors
 * serve: Yahoo's chart API adjusts every price (and volume, and dividend) for the splits after its day, and both
 * Yahoo (`adjclose`) and EODHD (`adjusted_close`) add a close adjusted for splits and dividends, re-based each
 * time a later dividend goes ex (CRSP's method: each ex-day multiplies the closes before it by
 * 1 − dividend / previous close). Pure.
 */
import type { DailyBar } from '../../pipeline/sources/market-source.js';

/** For each bar, the product of the split ratios of the bars after it: what its prices are divided by. */
export function laterSplitFactors(bars: readonly DailyBar[]): number[] {
  const factors = new Array<number>(bars.length);
  let after = 1;
  for (let i = bars.length - 1; i >= 0; i--) {
    factors[i] = after;
    after *= bars[i]?.split ?? 1;
  }
  return factors;
}

/** Each bar's close adjusted for the splits and dividends after it, as the vendors' adjusted closes are. */
export function adjustedCloses(bars: readonly DailyBar[]): number[] {
  const splits = laterSplitFactors(bars);
  const closes = bars.map((b, i) => b.close / (splits[i] ?? 1));
  const out = new Array<number>(bars.length);
  let multiplier = 1;
  for (let i = bars.length - 1; i >= 0; i--) {
    out[i] = (closes[i] ?? 0) * multiplier;
    const bar = bars[i];
    const previous = closes[i - 1];
    if (bar && bar.dividend > 0 && previous !== undefined) multiplier *= 1 - bar.dividend / (splits[i] ?? 1) / previous;
  }
  return out;
}

/**
 * A split ratio as the vendors write it, shares after over shares before in whole numbers: 4 → 4/1, 1.5 → 3/2,
 * 0.1 (a 1-for-10 reverse split) → 1/10.
 */
export function splitFraction(ratio: number): { numerator: number; denominator: number } {
  for (let denominator = 1; denominator <= 1000; denominator++) {
    const numerator = Math.round(ratio * denominator);
    if (numerator > 0 && Math.abs(numerator / denominator - ratio) < 1e-9) return { numerator, denominator };
  }
  throw new RangeError(`split ratio ${ratio} is not a fraction with a denominator up to 1000`);
}
