/**
 * Φ and Φ⁻¹ (pipeline/performance/normal.ts) against published values: the upper critical values of the
 * standard normal in the NIST/SEMATECH e-Handbook of Statistical Methods, §1.3.6.7.1 (three decimals), and the
 * same quantiles and probabilities to full double precision as a second implementation prints them, scipy
 * 1.17's `scipy.stats.norm.ppf`/`cdf` (Cephes' `ndtri` and `ndtr`).
 */
import { describe, expect, it } from 'vitest';
import { normalCdf, normalQuantile } from '../../../pipeline/performance/normal.js';

describe('normalQuantile (Φ⁻¹)', () => {
  it('gives the NIST handbook critical values to the three decimals printed there', () => {
    const nist: Array<[number, number]> = [
      [0.9, 1.282],
      [0.95, 1.645],
      [0.975, 1.96],
      [0.99, 2.326],
      [0.995, 2.576],
      [0.999, 3.09],
    ];
    for (const [p, z] of nist) expect(normalQuantile(p)).toBeCloseTo(z, 3);
  });

  it('matches scipy to full precision, in both tails', () => {
    const reference: Array<[number, number]> = [
      [0.5, 0],
      [0.9, 1.2815515655446004],
      [0.95, 1.6448536269514722],
      [0.975, 1.959963984540054],
      [0.99, 2.3263478740408408],
      [0.995, 2.5758293035489004],
      [0.999, 3.090232306167813],
      [0.025, -1.9599639845400545],
      [1e-10, -6.361340902404056],
    ];
    for (const [p, z] of reference) expect(Math.abs(normalQuantile(p) - z)).toBeLessThanOrEqual(4e-15 * Math.max(1, Math.abs(z)));
  });

  it('is −∞ and +∞ at 0 and 1, and refuses what is not a probability', () => {
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
    for (const p of [-0.1, 1.5, Number.NaN]) expect(() => normalQuantile(p)).toThrow(/p: expected a probability/);
  });
});

describe('normalCdf (Φ)', () => {
  // Φ(x) = erfc(−x/√2) / 2: the rounding of x/√2 is magnified by about x² in the tail, 1.6e−14 relative at −10.
  it('matches scipy to full precision, far into the tails', () => {
    const reference: Array<[number, number]> = [
      [0, 0.5],
      [1, 0.8413447460685429],
      [1.96, 0.9750021048517795],
      [-3, 0.0013498980316300933],
      [5, 0.9999997133484281],
      [-10, 7.61985302416047e-24],
    ];
    for (const [x, p] of reference) expect(Math.abs(normalCdf(x) - p)).toBeLessThanOrEqual(2e-14 * p);
  });

  it('inverts Φ⁻¹', () => {
    for (const p of [1e-8, 0.001, 0.2, 0.5, 0.8, 0.999]) expect(normalCdf(normalQuantile(p))).toBeCloseTo(p, 14);
  });
});
