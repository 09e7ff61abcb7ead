/**
 * The ARMA(1,1) model with a mean, ARIMA(1,0,1) in Box–Jenkins' terms, in the convention of gretl, Stata,
 * R's `arima` and statsmodels' `ARIMA` (all four write the MA term with a plus sign):
 *
 *   y_t − μ = φ (y_{t−1} − μ) + ε_t + θ ε_{t−1},   ε_t ~ N(0, σ²) independent,
 *
 * μ the mean of the process (not the intercept c = μ(1 − φ) that some programs print), σ² the variance of
 * the innovations ε_t. A fit "without a mean" fixes μ = 0 (statsmodels' `trend='n'`, gretl's `--nc`, Stata's
 * `noconstant`). The process is stationary for |φ| < 1 and invertible for |θ| ≤ 1 (|θ| = 1 is allowed: the
 * exact likelihood is finite there and the maximum can lie on it, e.g. for an over-differenced series).
 */
import { validationError, type FieldError } from '../../src/core/errors.js';

export interface Arma11 {
  /** μ, the mean of the process (0 for a fit without a mean). */
  mean: number;
  /** φ, the AR coefficient, |φ| < 1. */
  phi: number;
  /** θ, the MA coefficient (plus-sign convention), |θ| ≤ 1. */
  theta: number;
  /** σ², the innovation variance, > 0. */
  sigma2: number;
}

/** Throws `validation_failed` naming every parameter of `model` outside the model's region. */
export function assertModel(model: Arma11, name = 'model'): void {
  const errors: FieldError[] = [];
  if (!Number.isFinite(model.mean)) errors.push({ field: `${name}.mean`, message: `is ${model.mean}, not a finite number` });
  if (!(Math.abs(model.phi) < 1)) errors.push({ field: `${name}.phi`, message: `is ${model.phi}; a stationary ARMA(1,1) needs |φ| < 1` });
  if (!(Math.abs(model.theta) <= 1)) errors.push({ field: `${name}.theta`, message: `is ${model.theta}; an invertible ARMA(1,1) needs |θ| ≤ 1` });
  if (!(model.sigma2 > 0 && Number.isFinite(model.sigma2)))
    errors.push({ field: `${name}.sigma2`, message: `is ${model.sigma2}; the innovation variance must be a positive number` });
  if (errors.length > 0) throw validationError(errors);
}
