/**
 * The ARMA(1,1) estimator against published exact maximum likelihood results (sources: fixtures/README.md):
 *
 * - gretl's `arima 1 0 1` (exact ML) of statsmodels' simulated series `y_arma11` (`--nc`, no mean) and
 *   `y_arma11c` (with a mean), 250 observations each, with gretl's 10 forecasts and their standard errors;
 * - Stata's `arima, arima(1,1,1)`, an ARMA(1,1) with a mean of the first differences: the wholesale price
 *   index of the Stata manual ([TS] arima, Example 1) and the US CPI of statsmodels' `macrodata`, the CPI also
 *   with `noconstant`.
 *
 * Each case checks (1) our log-likelihood at the published estimates against the published log-likelihood,
 * which tests the likelihood alone, and (2) our fit against the published estimates, which tests the search.
 * gretl converges tightly: its φ, θ and σ are matched to 1e−7 and its μ to 2e−7 (the likelihood is so flat
 * in μ, s.e. 0.27, that 2e−7 moves it by 1e−13), so the test asks for 1e−6. Stata stops earlier (its default
 * tolerances), so its estimates are matched to 1e−4, and our maximum must be at least as high as Stata's.
 */
import { describe, expect, it } from 'vitest';
import { fitArma11 } from '../../../pipeline/forecast/fit.js';
import { forecastArma11 } from '../../../pipeline/forecast/forecast.js';
import { logLikelihood } from '../../../pipeline/forecast/likelihood.js';
import type { Arma11 } from '../../../pipeline/forecast/model.js';
import { asStataFloat, difference, fixtureColumn, gretl, stata } from './reference-data.js';

interface Published {
  mean: number;
  phi: number;
  theta: number;
  sigma: number;
  llf: number;
}

const modelOf = (p: Published): Arma11 => ({ mean: p.mean, phi: p.phi, theta: p.theta, sigma2: p.sigma ** 2 });

const within = (actual: number, expected: number, tol: number): void => {
  expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(tol);
};

describe.each([
  ['y_arma11', 'without a mean (gretl --nc)', false],
  ['y_arma11c', 'with a mean', true],
] as const)('gretl exact ML, %s %s', (column, _, withMean) => {
  const y = Float64Array.from(fixtureColumn('gretl_y_arma11.csv', column));
  const ref = gretl[column];

  it("our log-likelihood at gretl's estimates is gretl's, to 1e−9", () => {
    expect(y).toHaveLength(250);
    within(logLikelihood(y, modelOf(ref)), ref.llf, 1e-9);
  });

  it("the fit reproduces gretl's estimates to 1e−6 and its log-likelihood to 1e−9", () => {
    const fit = fitArma11(y, { withMean });
    expect(fit.n).toBe(250);
    expect(fit.withMean).toBe(withMean);
    within(fit.mean, ref.mean, 1e-6);
    within(fit.phi, ref.phi, 1e-6);
    within(fit.theta, ref.theta, 1e-6);
    within(Math.sqrt(fit.sigma2), ref.sigma, 1e-6);
    within(fit.loglik, ref.llf, 1e-9);
  });

  // gretl prints the forecasts to 10 decimals and their standard errors to 6 significant digits.
  it("forecasts 1…10 steps at gretl's estimates: gretl's forecasts to 1e−9, standard errors to their printed digits", () => {
    const fc = forecastArma11(y, modelOf(ref), 10);
    ref.forecast.forEach((f, j) => within(fc.mean[j]!, f, 1e-9));
    ref.forecast_se.forEach((se, j) => within(fc.se[j]!, se, 5e-6 * se));
  });

  it("forecasts from our own fit: gretl's forecasts to 1e−6, standard errors to their printed digits", () => {
    const fc = forecastArma11(y, fitArma11(y, { withMean }), 10);
    ref.forecast.forEach((f, j) => within(fc.mean[j]!, f, 1e-6));
    ref.forecast_se.forEach((se, j) => within(fc.se[j]!, se, 5e-6 * se));
  });
});

describe.each([
  ['wpi1', 'the wholesale price index (Stata manual [TS] arima, Example 1)', 'stata_wpi1.csv', 'wpi', true, 1e-5],
  ['cpi', "the US CPI of statsmodels' macrodata", 'stata_cpi.csv', 'cpi', true, 1e-9],
  ['cpi_nc', 'the US CPI, noconstant', 'stata_cpi.csv', 'cpi', false, 1e-9],
] as const)('Stata arima(1,1,1): %s, %s', (key, _, file, column, withMean, llfTol) => {
  const y = difference(asStataFloat(fixtureColumn(file, column)));
  const ref = stata[key];

  // wpi1's log-likelihood is published to 5 decimals (the manual), the CPI's to 14 significant digits.
  it(`our log-likelihood at Stata's estimates is Stata's, to ${llfTol}`, () => {
    expect(y).toHaveLength(ref.n);
    within(logLikelihood(y, modelOf(ref)), ref.llf, llfTol);
  });

  it("the fit reproduces Stata's estimates to 1e−4, at a log-likelihood no lower than Stata's", () => {
    const fit = fitArma11(y, { withMean });
    within(fit.mean, ref.mean, 1e-4);
    within(fit.phi, ref.phi, 1e-4);
    within(fit.theta, ref.theta, 1e-4);
    within(Math.sqrt(fit.sigma2), ref.sigma, 1e-4);
    expect(fit.loglik).toBeGreaterThanOrEqual(logLikelihood(y, modelOf(ref)) - 1e-9);
    within(fit.loglik, ref.llf, Math.max(llfTol, 1e-6));
  });
});
