/**
 * The exact likelihood (Kalman filter / innovations, likelihood.ts) against a second implementation, the
 * multivariate normal density with the Toeplitz autocovariance matrix (dense.ts), across the parameter
 * region and at its edges; and the profile likelihood against the full one.
 */
import { describe, expect, it } from 'vitest';
import { logLikelihood, profileLogLikelihood } from '../../../pipeline/forecast/likelihood.js';
import { filterArma11, innovationSums, stationaryVariance } from '../../../pipeline/forecast/innovations.js';
import type { Arma11 } from '../../../pipeline/forecast/model.js';
import { denseLogLikelihood, simulateArma11 } from './dense.js';

const CASES: Array<[string, Arma11]> = [
  ['a typical ARMA(1,1)', { mean: 2.5, phi: 0.6, theta: 0.3, sigma2: 1.7 }],
  ['negative coefficients', { mean: -1, phi: -0.7, theta: -0.4, sigma2: 0.5 }],
  ['near a unit root', { mean: 100, phi: 0.99, theta: -0.5, sigma2: 2 }],
  ['MA on the invertibility boundary', { mean: 0, phi: 0.2, theta: -1, sigma2: 1 }],
  ['MA on the other boundary', { mean: 0, phi: -0.3, theta: 1, sigma2: 1 }],
  ['white noise (φ = −θ, a common factor)', { mean: 0.1, phi: 0.5, theta: -0.5, sigma2: 1 }],
  ['pure AR(1)', { mean: 0, phi: 0.8, theta: 0, sigma2: 3 }],
  ['pure MA(1)', { mean: 0, phi: 0, theta: 0.9, sigma2: 0.2 }],
];

describe('logLikelihood (Kalman filter) equals the dense multivariate normal density', () => {
  it.each(CASES)('%s', (_, model) => {
    for (const [n, seed] of [
      [10, 1],
      [60, 2],
    ] as const) {
      const y = simulateArma11({ ...model, theta: Math.max(-0.95, Math.min(0.95, model.theta)) }, n, seed);
      const dense = denseLogLikelihood(y, model);
      expect(Math.abs(logLikelihood(y, model) - dense)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(dense)));
    }
  });
});

describe('the filter', () => {
  it('starts from the stationary variance and falls to 1 (θ = 0.5)', () => {
    const { F } = filterArma11(simulateArma11({ mean: 0, phi: 0.4, theta: 0.5, sigma2: 1 }, 40, 3), 0, 0.4, 0.5);
    expect(F[0]).toBeCloseTo(stationaryVariance(0.4, 0.5), 14);
    expect(F[0]).toBeCloseTo((1 + 2 * 0.4 * 0.5 + 0.25) / (1 - 0.16), 14);
    for (let t = 1; t < F.length; t++) expect(F[t]!).toBeLessThanOrEqual(F[t - 1]!);
    expect(Math.abs(F[39]! - 1)).toBeLessThan(1e-15);
  });

  it('innovationSums, with its steady-state shortcut, agrees with the full filter', () => {
    const y = simulateArma11({ mean: 0, phi: 0.7, theta: 0.6, sigma2: 1 }, 500, 4);
    const { v, F } = filterArma11(y, 0, 0.7, 0.6);
    let yy = 0;
    let logF = 0;
    for (let t = 0; t < y.length; t++) {
      yy += (v[t]! * v[t]!) / F[t]!;
      logF += Math.log(F[t]!);
    }
    const s = innovationSums(y, 0.7, 0.6, false);
    expect(Math.abs(s.yy - yy)).toBeLessThanOrEqual(1e-12 * yy);
    expect(Math.abs(s.logF - logF)).toBeLessThanOrEqual(1e-12);
  });
});

describe('profileLogLikelihood', () => {
  const y = simulateArma11({ mean: 3, phi: 0.5, theta: 0.4, sigma2: 2 }, 120, 5);

  it('is the full log-likelihood at its μ̂ and σ̂², and moving either lowers it', () => {
    const p = profileLogLikelihood(y, 0.5, 0.4, true);
    const at = (mean: number, sigma2: number): number => logLikelihood(y, { mean, phi: 0.5, theta: 0.4, sigma2 });
    expect(Math.abs(at(p.mean, p.sigma2) - p.loglik)).toBeLessThanOrEqual(1e-9);
    for (const d of [-1e-3, 1e-3]) {
      expect(at(p.mean + d, p.sigma2)).toBeLessThan(p.loglik);
      expect(at(p.mean, p.sigma2 * (1 + d))).toBeLessThan(p.loglik);
    }
  });

  it('without a mean, μ is 0 and σ̂² maximises', () => {
    const p = profileLogLikelihood(y, 0.5, 0.4, false);
    expect(p.mean).toBe(0);
    const at = (sigma2: number): number => logLikelihood(y, { mean: 0, phi: 0.5, theta: 0.4, sigma2 });
    expect(Math.abs(at(p.sigma2) - p.loglik)).toBeLessThanOrEqual(1e-9);
    expect(at(p.sigma2 * 1.001)).toBeLessThan(p.loglik);
    expect(at(p.sigma2 * 0.999)).toBeLessThan(p.loglik);
  });
});
