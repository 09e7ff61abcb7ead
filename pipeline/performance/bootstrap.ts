/**
 * The stationary bootstrap (D. N. Politis and J. P. Romano, "The Stationary Bootstrap", Journal of the American
 * Statistical Association 89(428), 1994, pp. 1303–1313) of a statistic's difference between two return series
 * observed on the same days: how sure the comparison of a strategy with its benchmark is.
 *
 * A resample of n days is built of blocks: each block starts on a day drawn uniformly from the n days, runs on
 * over consecutive days (wrapping from the last day to the first) and has a length drawn from the geometric
 * distribution on {1, 2, …} with mean b, P(L = k) = (1 − 1/b)^(k − 1)·(1/b); blocks follow one another until n
 * days are drawn. Geometric lengths make the resampled series stationary, and blocks keep the days' dependence
 * (volatility clusters, a strategy's long spells out of the market) that drawing single days would destroy.
 *
 * The two series are resampled jointly, the same days for both, so that what the days have in common (the
 * market's moves) stays paired and only the difference is judged. Deterministic for a seed (../random.ts).
 * Pure.
 */
import { createRng, type Rng } from '../random.js';

/** A block length: geometric on {1, 2, …} with mean `meanBlock` ≥ 1 (by inversion, L = 1 + ⌊ln U / ln(1 − 1/b)⌋, U uniform on (0, 1]). */
export function drawBlockLength(rng: Rng, meanBlock: number): number {
  if (!(meanBlock >= 1)) throw new RangeError(`meanBlock: expected a number ≥ 1, got ${meanBlock}`);
  if (meanBlock === 1) return 1;
  const u = 1 - rng.uniform();
  return 1 + Math.floor(Math.log(u) / Math.log(1 - 1 / meanBlock));
}

/** The day indices (0 … n − 1) of one stationary-bootstrap resample of n days, written into `out` (length n). */
export function stationaryResample(rng: Rng, n: number, meanBlock: number, out: Int32Array = new Int32Array(n)): Int32Array {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`n: expected an integer ≥ 1, got ${n}`);
  if (out.length !== n) throw new RangeError(`out: expected length ${n}, got ${out.length}`);
  let filled = 0;
  while (filled < n) {
    let day = rng.int(n);
    const end = Math.min(n, filled + drawBlockLength(rng, meanBlock));
    for (; filled < end; filled++) {
      out[filled] = day;
      day = day + 1 === n ? 0 : day + 1;
    }
  }
  return out;
}

/** A statistic of one return series; null where it is undefined (no variance, no drawdown). */
export type Statistic = (returns: Float64Array) => number | null;

export interface BootstrapOptions {
  /** The number of resamples. */
  resamples: number;
  /** The mean block length b ≥ 1. */
  meanBlock: number;
  seed: number;
}

/**
 * Each statistic of each series on each of `resamples` stationary-bootstrap resamples, every series resampled
 * on the same days (the series are the same days' returns of several strategies); NaN where a statistic is
 * undefined. `values[series][statistic][r]`.
 */
export function jointBootstrap<S extends string, K extends string>(
  series: Record<S, Float64Array>,
  statistics: Record<K, Statistic>,
  options: BootstrapOptions,
): Record<S, Record<K, Float64Array>> {
  const names = Object.keys(series) as S[];
  if (names.length === 0) throw new RangeError('series: expected at least one');
  const n = series[names[0]!].length;
  for (const s of names) if (series[s].length !== n) throw new RangeError(`series ${s}: expected the ${n} days of ${names[0]}, got ${series[s].length}`);
  if (!Number.isInteger(options.resamples) || options.resamples < 1) throw new RangeError(`resamples: expected an integer ≥ 1, got ${options.resamples}`);
  const keys = Object.keys(statistics) as K[];
  const values = Object.fromEntries(names.map((s) => [s, Object.fromEntries(keys.map((k) => [k, new Float64Array(options.resamples)]))])) as Record<
    S,
    Record<K, Float64Array>
  >;
  const rng = createRng(options.seed);
  const index = new Int32Array(n);
  const drawn = new Float64Array(n);
  for (let r = 0; r < options.resamples; r++) {
    stationaryResample(rng, n, options.meanBlock, index);
    for (const s of names) {
      const x = series[s];
      for (let t = 0; t < n; t++) drawn[t] = x[index[t]!]!;
      for (const k of keys) values[s][k][r] = statistics[k](drawn) ?? Number.NaN;
    }
  }
  return values;
}

/** a − b, resample by resample (NaN where either is). */
export const differences = (a: Float64Array, b: Float64Array): Float64Array => a.map((x, i) => x - b[i]!);

/** The q-quantile (0 ≤ q ≤ 1) of sorted values, linear between order statistics (numpy's default, Hyndman–Fan type 7). */
export function quantileSorted(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) throw new RangeError('sorted: expected at least one value');
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

export interface DifferenceInterval {
  /** The difference on the days themselves; null where undefined. */
  observed: number | null;
  /** The percentile intervals of the resampled differences: [5 %, 95 %] and [2.5 %, 97.5 %]. */
  ci90: [number, number] | null;
  ci95: [number, number] | null;
  /** The share of resamples in which the difference is ≤ 0: P(lead ≤ 0). */
  p_lead_le_0: number | null;
  /** Resamples with a defined difference, and those without (left out of the figures above). */
  resamples: number;
  undefined_resamples: number;
}

/** The percentile intervals and P(lead ≤ 0) of resampled differences (NaN = undefined, counted apart). */
export function differenceInterval(observed: number | null, resampled: Float64Array): DifferenceInterval {
  const defined = Float64Array.from(resampled.filter((d) => !Number.isNaN(d))).sort();
  const undefinedResamples = resampled.length - defined.length;
  if (defined.length === 0) return { observed, ci90: null, ci95: null, p_lead_le_0: null, resamples: 0, undefined_resamples: undefinedResamples };
  let atMostZero = 0;
  for (const d of defined) if (d <= 0) atMostZero++;
  const q = (p: number): number => quantileSorted(defined, p);
  return {
    observed,
    ci90: [q(0.05), q(0.95)],
    ci95: [q(0.025), q(0.975)],
    p_lead_le_0: atMostZero / defined.length,
    resamples: defined.length,
    undefined_resamples: undefinedResamples,
  };
}
