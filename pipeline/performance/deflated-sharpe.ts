/**
 * The probabilistic and the deflated Sharpe ratio (D. H. Bailey and M. López de Prado, "The Deflated Sharpe
 * Ratio: Correcting for Selection Bias, Backtest Overfitting and Non-Normality", Journal of Portfolio
 * Management 40(5), 2014, pp. 94–107; SSRN 2460551):
 *
 * - PSR(SR*) = Φ((SR^ − SR*)·√(T − 1) / √(1 − γ3·SR^ + (γ4 − 1)/4·SR^²)): the probability that the true Sharpe
 *   ratio exceeds SR*, given the estimate SR^ over T returns with skewness γ3 and kurtosis γ4 (not excess:
 *   3 for normal returns);
 * - SR0 = √V[SR_n]·((1 − γ)·Φ⁻¹(1 − 1/N) + γ·Φ⁻¹(1 − 1/(N·e))), γ the Euler–Mascheroni constant: the
 *   expected largest of N Sharpe ratios whose true value is 0 and whose estimates vary across the trials with
 *   variance V[SR_n] (the "false strategy" benchmark);
 * - DSR = PSR(SR0): the probability that the true Sharpe ratio is above what the best of N worthless trials
 *   would show.
 *
 * Units: in these formulas every Sharpe ratio is per period (here per trading day), never annualised; the
 * callers divide annualised figures by √252 and V by 252 before they come here. The moments are the sample
 * moments (m3 / m2^1.5, m4 / m2², the biased estimators the paper and scipy's defaults use). Pure.
 */
import { normalCdf, normalQuantile } from './normal.js';

/** γ, the Euler–Mascheroni constant. */
export const EULER_MASCHERONI = 0.5772156649015329;

export interface ReturnMoments {
  /** The number of returns, T. */
  observations: number;
  /** mean / standard deviation (ddof = 1), per period. */
  sharpe: number | null;
  /** m3 / m2^1.5. */
  skewness: number | null;
  /** m4 / m2² (3 for normal returns). */
  kurtosis: number | null;
}

/** The per-period Sharpe ratio, skewness and kurtosis of `returns` (no NaN); null where undefined (fewer than 2 returns, no variance). */
export function returnMoments(returns: Float64Array): ReturnMoments {
  const n = returns.length;
  if (n < 2) return { observations: n, sharpe: null, skewness: null, kurtosis: null };
  let sum = 0;
  for (const r of returns) {
    if (Number.isNaN(r)) throw new RangeError('returns: expected no NaN');
    sum += r;
  }
  const mean = sum / n;
  let m2 = 0;
  let m3 = 0;
  let m4 = 0;
  for (const r of returns) {
    const d = r - mean;
    const d2 = d * d;
    m2 += d2;
    m3 += d2 * d;
    m4 += d2 * d2;
  }
  if (m2 === 0) return { observations: n, sharpe: null, skewness: null, kurtosis: null };
  const std = Math.sqrt(m2 / (n - 1));
  m2 /= n;
  m3 /= n;
  m4 /= n;
  return { observations: n, sharpe: mean / std, skewness: m3 / m2 ** 1.5, kurtosis: m4 / (m2 * m2) };
}

/** PSR(SR*), Sharpe ratios per period; T ≥ 2 returns. */
export function probabilisticSharpe(sharpe: number, benchmark: number, observations: number, skewness: number, kurtosis: number): number {
  if (!Number.isInteger(observations) || observations < 2) throw new RangeError(`observations: expected an integer ≥ 2, got ${observations}`);
  const variance = 1 - skewness * sharpe + ((kurtosis - 1) / 4) * sharpe * sharpe;
  if (!(variance > 0)) throw new RangeError(`the moments give no positive variance of the Sharpe ratio (1 − γ3·SR + (γ4 − 1)/4·SR² = ${variance})`);
  return normalCdf(((sharpe - benchmark) * Math.sqrt(observations - 1)) / Math.sqrt(variance));
}

/** SR0, per period, from N ≥ 2 trials whose per-period Sharpe ratios have variance `variance`. */
export function expectedMaxSharpe(trials: number, variance: number): number {
  if (!Number.isInteger(trials) || trials < 2) throw new RangeError(`trials: expected an integer ≥ 2, got ${trials}`);
  if (!(variance >= 0)) throw new RangeError(`variance: expected a number ≥ 0, got ${variance}`);
  const g = EULER_MASCHERONI;
  return Math.sqrt(variance) * ((1 - g) * normalQuantile(1 - 1 / trials) + g * normalQuantile(1 - 1 / (trials * Math.E)));
}

/** The sample variance (ddof = 1) of the trials' Sharpe ratios, in their own units. */
export function trialVariance(sharpes: readonly number[]): number {
  if (sharpes.length < 2) throw new RangeError(`sharpes: expected at least 2 trials, got ${sharpes.length}`);
  const mean = sharpes.reduce((a, b) => a + b, 0) / sharpes.length;
  return sharpes.reduce((a, s) => a + (s - mean) ** 2, 0) / (sharpes.length - 1);
}

export interface DeflatedSharpe {
  observations: number;
  /** Per period. */
  sharpe: number;
  skewness: number;
  kurtosis: number;
  /** N, the trials the choice was made among. */
  trials: number;
  /** V[SR_n], per period². */
  trial_variance: number;
  /** SR0, per period. */
  expected_max_sharpe: number;
  /** PSR(0): the probability that the true Sharpe ratio is above 0, as if this were the only trial. */
  psr: number;
  /** PSR(SR0). */
  dsr: number;
}

/**
 * The deflated Sharpe ratio of `returns` (per period, no NaN), chosen among `trials` whose per-period Sharpe
 * ratios vary with `trialVariance`; null when the returns have no Sharpe ratio (fewer than 2, no variance).
 */
export function deflatedSharpe(returns: Float64Array, trials: number, variance: number): DeflatedSharpe | null {
  const m = returnMoments(returns);
  if (m.sharpe === null || m.skewness === null || m.kurtosis === null) return null;
  const sr0 = expectedMaxSharpe(trials, variance);
  return {
    observations: m.observations,
    sharpe: m.sharpe,
    skewness: m.skewness,
    kurtosis: m.kurtosis,
    trials,
    trial_variance: variance,
    expected_max_sharpe: sr0,
    psr: probabilisticSharpe(m.sharpe, 0, m.observations, m.skewness, m.kurtosis),
    dsr: probabilisticSharpe(m.sharpe, sr0, m.observations, m.skewness, m.kurtosis),
  };
}
