/**
 * The standard normal distribution's Φ and Φ⁻¹, for the probabilistic and deflated Sharpe ratios
 * (./deflated-sharpe.ts). JavaScript has no `erf`; the stdlib-js packages are maintained ports of Boost's
 * implementations, accurate to a few units in the last place (test/pipeline/performance/normal.test.ts holds
 * them to published values).
 *
 * Φ⁻¹(p) = −√2·erfc⁻¹(2p) rather than √2·erf⁻¹(2p − 1) (stdlib's normal quantile): 2p − 1 cancels for small p
 * and loses digits in the lower tail (Φ⁻¹(1e−10) off by 2e−9), while 2p is exact and Boost's erfc⁻¹ forms
 * 2 − 2p exactly for the upper half.
 */
import erfcinv from '@stdlib/math-base-special-erfcinv';
import cdf from '@stdlib/stats-base-dists-normal-cdf';

/** Φ(x) = P(Z ≤ x), Z standard normal. */
export function normalCdf(x: number): number {
  if (Number.isNaN(x)) throw new RangeError('x: expected a number, got NaN');
  return cdf(x, 0, 1);
}

/** Φ⁻¹(p): the x with Φ(x) = p, for p in (0, 1); −∞ at 0 and +∞ at 1. */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`p: expected a probability in [0, 1], got ${p}`);
  return -Math.SQRT2 * erfcinv(2 * p);
}
