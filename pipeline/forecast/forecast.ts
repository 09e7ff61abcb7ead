/**
 * Forecasts of an ARMA(1,1) 1…h steps past the end of a series, with their standard errors: the Kalman
 * filter's predictions from the state at the end of the sample (J. Durbin and S. J. Koopman, "Time Series
 * Analysis by State Space Methods", 2nd ed., 2012, §4.11; P. J. Brockwell and R. A. Davis, "Introduction to
 * Time Series and Forecasting", 2nd ed., 2002, §3.3 and §5.4), as gretl's `fcast`, Stata's `predict, dynamic`
 * and statsmodels' `get_forecast` compute them after an exact ML fit. In the notation of innovations.ts:
 *
 *   ŷ_{n+1} = μ + x̂_{n+1},      x̂_{n+1} = φ x_n + θ v_n / F_n,     MSE σ² F_{n+1},
 *   ŷ_{n+j} = μ + φ^{j−1} x̂_{n+1},                                   MSE σ² P_j,
 *   P_1 = F_{n+1},  P_{j+1} = φ² P_j + 2φθ + θ² + 1   (the (1,1) entry of T P T′ + R R′ with P's other
 *   entries θ and θ²).
 *
 * The standard error is √MSE at the given parameters; like those programs it does not add the uncertainty of
 * the estimates. P_j rises to the process variance γ₀ = (1 + 2φθ + θ²)/(1 − φ²) as j grows (for a long
 * sample, P_j = 1 + (φ + θ)² (1 − φ^{2(j−1)}) / (1 − φ²), Brockwell and Davis eq. 5.4.4).
 */
import { assertSeries } from './series.js';
import { filterArma11 } from './innovations.js';
import { assertModel, type Arma11 } from './model.js';
import { validationError } from '../../src/core/errors.js';

export interface Forecast {
  /** ŷ_{n+1}, …, ŷ_{n+h}. */
  mean: Float64Array;
  /** Their standard errors. */
  se: Float64Array;
}

/** The h forecasts of `y` past its end under `model` (usually fitArma11's result). */
export function forecastArma11(y: ArrayLike<number>, model: Arma11, h: number): Forecast {
  assertSeries(y);
  assertModel(model);
  if (!Number.isInteger(h) || h < 1) throw validationError([{ field: 'h', message: `is ${h}; the horizon must be a whole number ≥ 1` }]);
  const { phi, theta, sigma2 } = model;
  const run = filterArma11(y, model.mean, phi, theta);
  const mean = new Float64Array(h);
  const se = new Float64Array(h);
  let x = run.next;
  let p = run.nextF;
  const fromNoise = 2 * phi * theta + theta * theta + 1;
  for (let j = 0; j < h; j++) {
    mean[j] = model.mean + x;
    se[j] = Math.sqrt(sigma2 * p);
    x *= phi;
    p = phi * phi * p + fromNoise;
  }
  return { mean, se };
}
