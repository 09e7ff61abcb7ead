/**
 * The Gaussian HMM against published results: the two-regime switching-mean model of the US federal funds
 * rate, 1954Q3–2010Q4, r_t = μ_{S_t} + ε_t, ε_t ~ N(0, σ²) (Stata 14 manual [TS] mswitch, Example 1;
 * statsmodels' `MarkovRegression(fedfunds, k_regimes=2)` and its notebook "Markov switching dynamic regression
 * models"). With a common variance and the ergodic initial distribution (statsmodels' and Stata's default),
 * this model *is* a 2-state, 1-dimensional Gaussian HMM, so:
 * - at Stata's estimates, our forward–backward must reproduce Stata's log-likelihood −508.63592, Stata's
 *   predicted, filtered and smoothed probabilities, and statsmodels' filtered and smoothed joint probabilities;
 * - our EM (tied covariance, stationary start) must reach the same maximum and the same estimates.
 * Sources, copied verbatim into fixtures/: see fixtures/README.md.
 */
import { describe, expect, it } from 'vitest';
import { stationaryDistribution, fit } from '../../../pipeline/hmm/fit.js';
import { backward, forward, pairwiseProbabilities, predictStep, smoothed } from '../../../pipeline/hmm/inference.js';
import { matchStates, permuteModel } from '../../../pipeline/hmm/matching.js';
import { logEmissions, type GaussianHmm } from '../../../pipeline/hmm/model.js';
import { fedfunds, reference, stataPredictions } from './fedfunds-fixture.js';

const stata = reference.stata;
const quarters = fedfunds();
const X = quarters.map((q) => Float64Array.of(q.rate));
const predictions = stataPredictions();

/** Stata's estimates as an HMM: statsmodels' p[1->0] = P(S_t = 0 | S_t−1 = 1) is a_10. */
function stataModel(): GaussianHmm {
  const transmat = Float64Array.of(stata.p00, 1 - stata.p00, stata.p10, 1 - stata.p10);
  const variance = Float64Array.of(stata.sigma ** 2);
  return {
    K: 2,
    d: 1,
    startProb: stationaryDistribution(transmat),
    transmat,
    means: [Float64Array.of(stata.const0), Float64Array.of(stata.const1)],
    covars: [variance, Float64Array.from(variance)],
  };
}

/** |actual − expected| ≤ rtol·|expected|: for probabilities printed to 9 significant digits. */
function expectRelative(actual: number, expected: number, rtol: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(rtol * Math.abs(expected));
}

describe("forward–backward at Stata's estimates", () => {
  const model = stataModel();
  const logB = logEmissions(model, X);
  const fwd = forward(model, logB);
  const logBeta = backward(model, logB, fwd.logNormalizers);
  const gamma = smoothed(fwd, logBeta);

  it('reproduces the published log-likelihood −508.63592 to its printed precision (5 decimals)', () => {
    expect(X).toHaveLength(226);
    expect(Math.abs(fwd.logLikelihood - stata.llf)).toBeLessThanOrEqual(5e-6);
  });

  it("starts from the ergodic distribution, Stata's first predicted probability .7376958", () => {
    // Stata computed it from unrounded estimates; from the printed ones it differs by 6e−7.
    expect(Math.abs(model.startProb[0]! - predictions[0]!.const_p1!)).toBeLessThanOrEqual(1e-6);
  });

  // Stata's probabilities are printed to 7 decimals and were computed at unrounded estimates; statsmodels
  // compares its smoothed probabilities with them to 1e−6, and so do we, for every quarter.
  it.each([
    ['predicted p(S_t | y_<t)', 'const_p'],
    ['filtered p(S_t | y_≤t)', 'const_f'],
    ['smoothed p(S_t | y_1..T)', 'const_sm'],
  ])("matches Stata's %s in all 226 quarters to 1e−6", (_, column) => {
    for (let t = 0; t < X.length; t++) {
      const ours =
        column === 'const_p'
          ? t === 0
            ? model.startProb
            : predictStep(fwd.filtered.subarray((t - 1) * 2, t * 2), model.transmat)
          : column === 'const_f'
            ? fwd.filtered.subarray(t * 2, t * 2 + 2)
            : gamma.subarray(t * 2, t * 2 + 2);
      expect(Math.abs(ours[0]! - predictions[t]![`${column}1`]!)).toBeLessThanOrEqual(1e-6);
      expect(Math.abs(ours[1]! - predictions[t]![`${column}2`]!)).toBeLessThanOrEqual(1e-6);
    }
  });

  it.each([
    // A few dates to read, copied from the CSV: the low-rate 1950s, the 1974 peak, a quarter where the smoother
    // overturns the filter (early 1975), the Volcker years, the 2008 crisis. State 0 is the low-rate regime.
    { quarter: '1954-07-01', filtered0: 0.9997776, smoothed0: 0.9999886 },
    { quarter: '1974-07-01', filtered0: 0.0000403, smoothed0: 0.000013 },
    { quarter: '1975-01-01', filtered0: 0.0779672, smoothed0: 0.5556827 },
    { quarter: '1981-01-01', filtered0: 1.1e-7, smoothed0: 2.08e-9 },
    { quarter: '2008-10-01', filtered0: 0.9999942, smoothed0: 0.9999997 },
  ])('on $quarter: filtered $filtered0, smoothed $smoothed0 (Stata)', ({ quarter, filtered0, smoothed0 }) => {
    const t = quarters.findIndex((q) => q.quarter === quarter);
    expect(predictions[t]!.const_f1).toBe(filtered0);
    expect(predictions[t]!.const_sm1).toBe(smoothed0);
    expect(Math.abs(fwd.filtered[t * 2]! - filtered0)).toBeLessThanOrEqual(1e-6);
    expect(Math.abs(gamma[t * 2]! - smoothed0)).toBeLessThanOrEqual(1e-6);
  });

  it("matches statsmodels' filtered joint probabilities p(S_t = i, S_t−1 = j | y_≤t) to their 9 printed digits", () => {
    const joint = reference.filtered_joint_probabilities.values;
    for (let t = 0; t < X.length; t++) {
      for (let i = 0; i < 2; i++) {
        for (let j = 0; j < 2; j++) {
          const prev = t === 0 ? model.startProb[j]! : fwd.filtered[(t - 1) * 2 + j]!;
          const ours = Math.exp(Math.log(prev) + Math.log(model.transmat[j * 2 + i]!) + logB[t * 2 + i]! - fwd.logNormalizers[t]!);
          expectRelative(ours, joint[i]![j]![t]!, 1e-8);
        }
        expectRelative(fwd.filtered[t * 2 + i]!, joint[i]![0]![t]! + joint[i]![1]![t]!, 1e-8);
      }
    }
  });
});

describe("the last 10 quarters at Stata's estimates (statsmodels' TestFedFundsConstShort)", () => {
  const model = stataModel();
  const short = X.slice(-10);
  const logB = logEmissions(model, short);
  const fwd = forward(model, logB);
  const logBeta = backward(model, logB, fwd.logNormalizers);
  const gamma = smoothed(fwd, logBeta);
  const smoothedJoint = reference.short.smoothed_joint_probabilities;

  it('log-likelihood −29.909297 (6 decimals)', () => {
    expect(Math.abs(fwd.logLikelihood - reference.short.llf)).toBeLessThanOrEqual(5e-7);
  });

  it('filtered probabilities', () => {
    const joint = reference.short.filtered_joint_probabilities;
    for (let t = 0; t < 10; t++) for (let i = 0; i < 2; i++) expectRelative(fwd.filtered[t * 2 + i]!, joint[i]![0]![t]! + joint[i]![1]![t]!, 1e-8);
  });

  it("pairwise smoothed probabilities p(S_t−1 = j, S_t = i | y) = statsmodels' smoothed joint [i][j][t]", () => {
    for (let t = 1; t < 10; t++) {
      const xi = pairwiseProbabilities(model, logB, fwd, logBeta, t - 1);
      for (let i = 0; i < 2; i++) for (let j = 0; j < 2; j++) expectRelative(xi[j * 2 + i]!, smoothedJoint[i]![j]![t]!, 1e-8);
    }
  });

  it('smoothed marginals, including t = 0 (summed over the pre-sample state)', () => {
    for (let t = 0; t < 10; t++) for (let i = 0; i < 2; i++) expectRelative(gamma[t * 2 + i]!, smoothedJoint[i]![0]![t]! + smoothedJoint[i]![1]![t]!, 1e-8);
  });
});

describe('EM on the federal funds rate', () => {
  const options = { K: 2, tiedCovariance: true, startProb: 'stationary', seed: 1 } as const;
  // The default tolerance (a gain below 1e−6 nats) stops within 1e−7 of the maximum; the estimates need more,
  // because the likelihood is flat there: p10 still moves by 3e−6 while it gains 5e−8.
  const result = fit(X, { ...options, tol: 1e-10 });
  // Label the states as Stata does (low rate first) before comparing.
  const model = permuteModel(result.model, matchStates(stataModel().means, result.model.means));

  it('reaches the published maximum log-likelihood −508.63592 within 1e−3, with the default options', () => {
    const byDefault = fit(X, options);
    expect(byDefault.converged).toBe(true);
    expect(Math.abs(byDefault.logLikelihood - stata.llf_fit)).toBeLessThanOrEqual(1e-3);
    expect(result.converged).toBe(true);
    expect(Math.abs(result.logLikelihood - stata.llf_fit)).toBeLessThanOrEqual(1e-5);
  });

  // Stata prints 7 significant digits, but the likelihood cannot tell the 7th apart: moving μ_1 by 1e−6 changes
  // it by ~1e−11 (its standard error is 0.30). Our optimum agrees with Stata's to 1e−5 relative (5+ digits) and
  // has a log-likelihood no lower than at Stata's printed estimates.
  it.each([
    ['p00', () => model.transmat[0]!, stata.p00],
    ['p10', () => model.transmat[2]!, stata.p10],
    ['const0', () => model.means[0]![0]!, stata.const0],
    ['const1', () => model.means[1]![0]!, stata.const1],
    ['sigma', () => Math.sqrt(model.covars[0]![0]!), stata.sigma],
  ] as const)("estimate %s matches Stata's", (_, ours, published) => {
    expectRelative(ours(), published, 1e-5);
  });

  it("has a log-likelihood at least that of Stata's printed estimates", () => {
    expect(result.logLikelihood).toBeGreaterThanOrEqual(forward(stataModel(), logEmissions(stataModel(), X)).logLikelihood - 1e-9);
  });

  it('keeps one covariance for both states and π stationary for A', () => {
    expect(model.covars[0]).toEqual(model.covars[1]);
    const pi = stationaryDistribution(model.transmat);
    expect(model.startProb[0]).toBeCloseTo(pi[0]!, 12);
  });

  it('never decreases the log-likelihood across iterations (1e−8 relative)', () => {
    expect(result.history.length).toBeGreaterThan(2);
    for (let i = 1; i < result.history.length; i++) {
      expect(result.history[i]!).toBeGreaterThanOrEqual(result.history[i - 1]! - 1e-8 * Math.abs(result.history[i - 1]!));
    }
  });

  it("with a free initial distribution (Rabiner's π = γ_1) reaches a higher maximum, as one more free parameter must", () => {
    const free = fit(X, { K: 2, tiedCovariance: true, startProb: 'estimate', seed: 1 });
    expect(free.logLikelihood).toBeGreaterThan(result.logLikelihood);
    for (let i = 1; i < free.history.length; i++) {
      expect(free.history[i]!).toBeGreaterThanOrEqual(free.history[i - 1]! - 1e-8 * Math.abs(free.history[i - 1]!));
    }
  });
});
