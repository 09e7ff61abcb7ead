/**
 * Forecasts against the best linear predictor computed from the autocovariance matrix (dense.ts), their
 * standard errors' limits, and the horizon argument.
 */
import { describe, expect, it } from 'vitest';
import { forecastArma11 } from '../../../pipeline/forecast/forecast.js';
import type { Arma11 } from '../../../pipeline/forecast/model.js';
import { isTradesealError } from '../../../src/core/errors.js';
import { autocovariance, densePredictor, simulateArma11 } from './dense.js';

describe('forecastArma11', () => {
  it.each([
    ['with a mean', { mean: 10, phi: 0.7, theta: 0.4, sigma2: 2 }],
    ['negative coefficients', { mean: 0, phi: -0.6, theta: -0.8, sigma2: 0.5 }],
    ['near a unit root', { mean: -3, phi: 0.98, theta: -0.3, sigma2: 1 }],
  ] as Array<[string, Arma11]>)('equals the best linear predictor and its MSE from the autocovariance matrix (%s)', (_, model) => {
    // A short series, where the filter is far from its steady state.
    const y = simulateArma11(model, 15, 11);
    const fc = forecastArma11(y, model, 8);
    const dense = densePredictor(y, model, 8);
    for (let j = 0; j < 8; j++) {
      expect(Math.abs(fc.mean[j]! - dense.mean[j]!)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(dense.mean[j]!)));
      expect(Math.abs(fc.se[j]! ** 2 - dense.mse[j]!)).toBeLessThanOrEqual(1e-9 * dense.mse[j]!);
    }
  });

  it('starts at σ on a long series and rises to the process standard deviation; the forecasts decay to μ', () => {
    const model = { mean: 5, phi: 0.5, theta: 0.3, sigma2: 4 };
    const y = simulateArma11(model, 400, 12);
    const fc = forecastArma11(y, model, 100);
    expect(fc.se[0]).toBeCloseTo(2, 12);
    expect(fc.se[1]).toBeCloseTo(2 * Math.sqrt(1 + 0.8 ** 2), 12);
    for (let j = 1; j < 100; j++) expect(fc.se[j]!).toBeGreaterThanOrEqual(fc.se[j - 1]!);
    expect(fc.se[99]).toBeCloseTo(Math.sqrt(autocovariance(model, 0)), 12);
    expect(fc.mean[99]).toBeCloseTo(5, 12);
  });

  it.each([0, -1, 2.5, Number.NaN])('refuses the horizon %s with validation_failed naming h', (h) => {
    const y = simulateArma11({ mean: 0, phi: 0.5, theta: 0.3, sigma2: 1 }, 20, 13);
    try {
      forecastArma11(y, { mean: 0, phi: 0.5, theta: 0.3, sigma2: 1 }, h);
      expect.unreachable();
    } catch (e) {
      expect(isTradesealError(e) && e.code === 'validation_failed' && e.errors?.[0]?.field === 'h').toBe(true);
    }
  });

  it('refuses a model outside the stationary, invertible region, naming every bad parameter', () => {
    const y = simulateArma11({ mean: 0, phi: 0.5, theta: 0.3, sigma2: 1 }, 20, 14);
    try {
      forecastArma11(y, { mean: 0, phi: 1, theta: -1.5, sigma2: 0 }, 3);
      expect.unreachable();
    } catch (e) {
      expect(isTradesealError(e) && e.code).toBe('validation_failed');
      expect(isTradesealError(e) && e.errors?.map((x) => x.field)).toEqual(['model.phi', 'model.theta', 'model.sigma2']);
    }
  });
});
