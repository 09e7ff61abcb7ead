/**
 * The search of fitArma11: its result is the global maximum of the exact likelihood (checked against a
 * brute-force grid over the whole stationary and invertible region, including a white-noise series, where
 * the maximum lies on the ridge φ = −θ, and an over-differenced one, where it lies on θ = −1), it recovers
 * the parameters of long simulated series, and it is deterministic and equivariant to shifting and scaling
 * the data. The published references are in reference.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { fitArma11 } from '../../../pipeline/forecast/fit.js';
import { profileLogLikelihood } from '../../../pipeline/forecast/likelihood.js';
import type { Arma11 } from '../../../pipeline/forecast/model.js';
import { createRng } from '../../../pipeline/random.js';
import { simulateArma11 } from './dense.js';

/** The highest profile log-likelihood on a (2·half + 1)² grid of (φ, θ) over [−0.995, 0.995] × [−1, 1]. */
function gridMaximum(y: Float64Array, withMean: boolean, half = 80): number {
  let best = -Infinity;
  for (let i = -half; i <= half; i++) {
    for (let j = -half; j <= half; j++) {
      best = Math.max(best, profileLogLikelihood(y, (0.995 * i) / half, j / half, withMean).loglik);
    }
  }
  return best;
}

const whiteNoise = (n: number, seed: number): Float64Array => {
  const rng = createRng(seed);
  return Float64Array.from({ length: n }, () => rng.normal());
};

describe('fitArma11 finds the global maximum', () => {
  const cases: Array<[string, Float64Array, boolean]> = [
    ['an ARMA(1,1) with a mean', simulateArma11({ mean: 1, phi: 0.6, theta: 0.3, sigma2: 1 }, 150, 21), true],
    ['negative coefficients, no mean', simulateArma11({ mean: 0, phi: -0.5, theta: -0.6, sigma2: 2 }, 150, 22), false],
    ['a near unit root', simulateArma11({ mean: 50, phi: 0.97, theta: -0.4, sigma2: 1 }, 150, 23), true],
    ['white noise (the ridge φ = −θ)', whiteNoise(150, 24), true],
    ['over-differenced white noise (θ = −1)', ((w) => w.slice(1).map((v, i) => v - w[i]!))(whiteNoise(151, 25)), true],
    ['the shortest series allowed', simulateArma11({ mean: 0, phi: 0.5, theta: 0.5, sigma2: 1 }, 10, 26), true],
  ];

  it.each(cases)('%s: no point of a 161 × 161 grid is higher', (_, y, withMean) => {
    const fit = fitArma11(y, { withMean });
    expect(Math.abs(fit.phi)).toBeLessThan(1);
    expect(Math.abs(fit.theta)).toBeLessThanOrEqual(1);
    expect(fit.loglik).toBeGreaterThanOrEqual(gridMaximum(y, withMean) - 1e-9);
  });

  it('puts the MA root of an over-differenced series on the boundary θ = −1', () => {
    const w = whiteNoise(301, 27);
    const fit = fitArma11(w.slice(1).map((v, i) => v - w[i]!));
    expect(fit.theta).toBeLessThan(-0.9999);
  });
});

describe('fitArma11 on long simulated series', () => {
  it.each([
    { mean: 10, phi: 0.7, theta: 0.4, sigma2: 1 },
    { mean: -2, phi: -0.4, theta: 0.6, sigma2: 0.25 },
    { mean: 0, phi: 0.9, theta: -0.5, sigma2: 4 },
  ] as Arma11[])('recovers %o from 5,000 observations', (model) => {
    const fit = fitArma11(simulateArma11(model, 5000, 31));
    // About four standard errors at n = 5,000.
    expect(Math.abs(fit.phi - model.phi)).toBeLessThan(0.05);
    expect(Math.abs(fit.theta - model.theta)).toBeLessThan(0.05);
    expect(Math.abs(fit.sigma2 / model.sigma2 - 1)).toBeLessThan(0.1);
    expect(Math.abs(fit.mean - model.mean)).toBeLessThan((4 * Math.sqrt(model.sigma2) * Math.abs(1 + model.theta)) / (1 - model.phi) / Math.sqrt(5000) + 1e-3);
  });
});

describe('fitArma11 is deterministic and equivariant', () => {
  const y = simulateArma11({ mean: 0.3, phi: 0.5, theta: -0.2, sigma2: 1 }, 200, 41);
  const base = fitArma11(y);

  it('gives the same fit twice, bit for bit', () => {
    expect(fitArma11(y)).toEqual(base);
  });

  it('shifting the data by 1,000 shifts μ̂ by 1,000 and changes nothing else', () => {
    const fit = fitArma11(y.map((v) => v + 1000));
    expect(Math.abs(fit.mean - base.mean - 1000)).toBeLessThan(1e-6);
    expect(Math.abs(fit.phi - base.phi)).toBeLessThan(1e-7);
    expect(Math.abs(fit.theta - base.theta)).toBeLessThan(1e-7);
    expect(Math.abs(fit.sigma2 - base.sigma2)).toBeLessThan(1e-9);
    expect(Math.abs(fit.loglik - base.loglik)).toBeLessThan(1e-9);
  });

  it('scaling the data by 100 scales μ̂ by 100 and σ̂² by 10⁴; φ̂, θ̂ stay', () => {
    const fit = fitArma11(y.map((v) => 100 * v));
    expect(Math.abs(fit.mean - 100 * base.mean)).toBeLessThan(1e-4);
    expect(Math.abs(fit.phi - base.phi)).toBeLessThan(1e-7);
    expect(Math.abs(fit.theta - base.theta)).toBeLessThan(1e-7);
    expect(Math.abs(fit.sigma2 / 1e4 / base.sigma2 - 1)).toBeLessThan(1e-9);
    expect(Math.abs(fit.loglik - (base.loglik - 200 * Math.log(100)))).toBeLessThan(1e-7);
  });

  it('without a mean, μ̂ is 0 and the likelihood is no higher than with one', () => {
    const fit = fitArma11(y, { withMean: false });
    expect(fit.mean).toBe(0);
    expect(fit.withMean).toBe(false);
    expect(fit.loglik).toBeLessThanOrEqual(base.loglik + 1e-12);
  });
});
