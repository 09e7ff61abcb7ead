/**
 * pipeline/hmm/scaled-e-step.ts, the E-step EM runs first: the same statistics as the log-space recursions of
 * inference.ts (themselves checked against enumeration and published results) to rounding; the written-out
 * K = 4 loops the general loops' bit for bit; and where probabilities would lose what logarithms keep, no
 * answer, so that EM evaluates that iteration in logarithms (the answer `eStep` then gives is the log path's).
 */
import { describe, expect, it } from 'vitest';
import { eStep, logSpaceEStep } from '../../../pipeline/hmm/baum-welch.js';
import { stationaryDistribution } from '../../../pipeline/hmm/chain.js';
import { backward, expectedTransitions, forward, smoothed, type MarkovChain } from '../../../pipeline/hmm/inference.js';
import { logEmissions, type GaussianHmm } from '../../../pipeline/hmm/model.js';
import { scaledEStatistics, type EStatistics } from '../../../pipeline/hmm/scaled-e-step.js';
import { createRng } from '../../../pipeline/random.js';
import { fedfunds, reference } from './fedfunds-fixture.js';
import { regimeLikeModel, sampleHmm } from './synthetic.js';

function randomChain(K: number, seed: number): MarkovChain {
  const rng = createRng(seed);
  const row = (): number[] => {
    const v = Array.from({ length: K }, () => 0.02 + rng.uniform() ** 3);
    const s = v.reduce((a, b) => a + b, 0);
    return v.map((x) => x / s);
  };
  return { K, startProb: Float64Array.from(row()), transmat: Float64Array.from(Array.from({ length: K }, row).flat()) };
}

/** The log-space statistics, computed from inference.ts directly. */
function logSpace(chain: MarkovChain, logB: Float64Array): EStatistics {
  const fwd = forward(chain, logB);
  const logBeta = backward(chain, logB, fwd.logNormalizers);
  return { logLikelihood: fwd.logLikelihood, gamma: smoothed(fwd, logBeta), counts: expectedTransitions(chain, logB, fwd, logBeta) };
}

function expectClose(scaled: EStatistics, exact: EStatistics, T: number): void {
  expect(Math.abs(scaled.logLikelihood - exact.logLikelihood)).toBeLessThanOrEqual(1e-12 * Math.abs(exact.logLikelihood) + 1e-12);
  let gamma = 0;
  exact.gamma.forEach((g, n) => (gamma = Math.max(gamma, Math.abs(scaled.gamma[n]! - g))));
  expect(gamma).toBeLessThanOrEqual(1e-12);
  let counts = 0;
  exact.counts.forEach((c, n) => (counts = Math.max(counts, Math.abs(scaled.counts[n]! - c))));
  expect(counts).toBeLessThanOrEqual(1e-12 * T);
}

describe('scaledEStatistics against the log-space recursions', () => {
  it.each([
    { K: 2, T: 500, spread: 3 },
    { K: 3, T: 800, spread: 20 },
    { K: 4, T: 2268, spread: 3 },
    // Emissions up to e^−400 below the step's best: those states' α̂ are subnormal or 0; nothing else moves.
    { K: 4, T: 2268, spread: 400 },
    { K: 5, T: 300, spread: 50 },
  ])('K = $K, T = $T, log emissions spread over $spread nats', ({ K, T, spread }) => {
    for (let seed = 1; seed <= 5; seed++) {
      const chain = randomChain(K, seed);
      const rng = createRng(seed + 1000);
      const logB = Float64Array.from({ length: T * K }, () => -1000 - spread * rng.uniform() ** 2);
      const scaled = scaledEStatistics(chain, logB);
      expect(scaled, `seed ${seed}`).not.toBeNull();
      expectClose(scaled!, logSpace(chain, logB), T);
    }
  });

  it('a regime-like model on its own sample, and on a sample of another model', () => {
    const model = regimeLikeModel(4);
    const other = { ...regimeLikeModel(4), means: regimeLikeModel(4).means.map((m) => m.map((v) => 3 * v)) };
    for (const source of [model, other]) {
      const { X } = sampleHmm(source, 3000, 9);
      const logB = logEmissions(model, X);
      expectClose(scaledEStatistics(model, logB)!, logSpace(model, logB), X.length);
    }
  });

  it("the federal funds model at Stata's estimates: the published log-likelihood −508.63592", () => {
    const s = reference.stata;
    const transmat = Float64Array.of(s.p00, 1 - s.p00, s.p10, 1 - s.p10);
    const variance = Float64Array.of(s.sigma ** 2);
    const model: GaussianHmm = {
      K: 2,
      d: 1,
      startProb: stationaryDistribution(transmat),
      transmat,
      means: [Float64Array.of(s.const0), Float64Array.of(s.const1)],
      covars: [variance, Float64Array.from(variance)],
    };
    const logB = logEmissions(
      model,
      fedfunds().map((q) => Float64Array.of(q.rate)),
    );
    const scaled = scaledEStatistics(model, logB)!;
    expect(Math.abs(scaled.logLikelihood - s.llf)).toBeLessThanOrEqual(5e-6);
    expectClose(scaled, logSpace(model, logB), 226);
  });

  it("K = 4: the written-out loops give the general loops' numbers, bit for bit", () => {
    for (let seed = 1; seed <= 4; seed++) {
      const chain = randomChain(4, seed);
      const rng = createRng(seed + 50);
      const logB = Float64Array.from({ length: 4 * 1500 }, () => -30 * rng.uniform());
      const unrolled = scaledEStatistics(chain, logB)!;
      const general = scaledEStatistics(chain, logB, false)!;
      expect(Object.is(unrolled.logLikelihood, general.logLikelihood)).toBe(true);
      unrolled.gamma.forEach((g, n) => expect(Object.is(g, general.gamma[n])).toBe(true));
      unrolled.counts.forEach((c, n) => expect(Object.is(c, general.counts[n])).toBe(true));
    }
  });
});

describe('where logarithms are needed', () => {
  // The best state of observation 2 was all but ruled out by the prediction: normaliser e^−700.
  const chain: MarkovChain = { K: 2, startProb: Float64Array.of(1, 0), transmat: Float64Array.of(1 - 1e-300, 1e-300, 0.5, 0.5) };
  const logB = Float64Array.of(0, 0, 0, 0, -2000, 0, 0, 0);

  it.each([2, 4])('declines (K = %i, both loops) when a normaliser is below 1e−150 or an observation is impossible', (K) => {
    const pad = (b: Float64Array, c: MarkovChain): [MarkovChain, Float64Array] => {
      if (K === 2) return [c, b];
      // The same chain with two unreachable states added.
      const A = new Float64Array(16);
      for (let i = 0; i < 2; i++) for (let j = 0; j < 2; j++) A[i * 4 + j] = c.transmat[i * 2 + j]!;
      A[10] = 1;
      A[15] = 1;
      const E = Float64Array.from({ length: (b.length / 2) * 4 }, (_, n) => (n % 4 < 2 ? b[(n >> 2) * 2 + (n % 4)]! : -Infinity));
      return [{ K: 4, startProb: Float64Array.of(c.startProb[0]!, c.startProb[1]!, 0, 0), transmat: A }, E];
    };
    const [c, b] = pad(logB, chain);
    for (const unrolled of [true, false]) {
      expect(scaledEStatistics(c, b, unrolled)).toBeNull();
      const impossible = Float64Array.from(b);
      impossible.fill(-Infinity, K, 2 * K);
      expect(scaledEStatistics(c, impossible, unrolled)).toBeNull();
    }
  });

  it('declines when a β̂ would exceed 1e100 (a state the past all but ruled out and the future favours)', () => {
    // Two states that never switch; state 1 starts at 1e−120 and the observations favour it by e^200 from t = 1:
    // every normaliser is above 1e−150, but β̂_0(1) = 1 / (p(s_0 = 1) · …) ≈ 1e120.
    const c: MarkovChain = { K: 2, startProb: Float64Array.of(1 - 1e-120, 1e-120), transmat: Float64Array.of(1, 0, 0, 1) };
    const y = Float64Array.of(0, 0, -200, 0, -200, 0);
    expect(scaledEStatistics(c, y)).toBeNull();
    const exact = logSpace(c, y);
    expect(exact.gamma[1]).toBeCloseTo(1, 12);
    // One step less and β̂ stays below the bound: the scaled path answers, as the log path does.
    const shorter = y.subarray(0, 4);
    expectClose(scaledEStatistics(c, shorter)!, logSpace(c, shorter), 2);
  });

  it("eStep then answers in logarithms: the log path's statistics exactly", () => {
    const model: GaussianHmm = {
      K: 2,
      d: 1,
      startProb: Float64Array.of(1 - 1e-300, 1e-300),
      transmat: Float64Array.of(1 - 1e-300, 1e-300, 0.5, 0.5),
      means: [Float64Array.of(0), Float64Array.of(100)],
      covars: [Float64Array.of(1), Float64Array.of(1)],
    };
    const X = [0, 0.1, 100, 99.5, 100.2].map((v) => Float64Array.of(v));
    const logB = logEmissions(model, X);
    expect(scaledEStatistics(model, logB)).toBeNull();
    const e = eStep(model, X);
    const exact = logSpaceEStep(model, logB);
    expect(e.logLikelihood).toBe(exact.logLikelihood);
    expect(Array.from(e.gamma)).toEqual(Array.from(exact.gamma));
    expect(Array.from(e.counts)).toEqual(Array.from(exact.counts));
    expect(e.gamma[2 * 2 + 1]).toBeCloseTo(1, 12);
  });
});
