/**
 * pipeline/hmm/inference.ts cross-checked against a second, independent implementation: brute-force
 * enumeration of all K^T state paths of a small chain (the definition of every quantity, with no recursion to
 * share a mistake with). Then the properties the walk-forward relies on: filterStep continues a forward pass
 * exactly, and nothing under- or overflows on long series or extreme emissions.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../../pipeline/random.js';
import {
  backward,
  expectedTransitions,
  filterStep,
  forward,
  pairwiseProbabilities,
  predictStep,
  smoothed,
  viterbi,
  type MarkovChain,
} from '../../../pipeline/hmm/inference.js';

function logSumExp(values: number[]): number {
  const max = Math.max(...values);
  if (max === -Infinity) return -Infinity;
  return max + Math.log(values.reduce((s, v) => s + Math.exp(v - max), 0));
}

interface Enumeration {
  paths: number[][];
  logJoint: number[];
}

/** Every path s_0..s_{T−1} with log p(s, y) = log π_{s0} + Σ log a + Σ log b. */
function enumerate(chain: MarkovChain, logB: ArrayLike<number>, T: number): Enumeration {
  const { K } = chain;
  const paths: number[][] = [];
  const logJoint: number[] = [];
  const total = K ** T;
  for (let code = 0; code < total; code++) {
    const path: number[] = [];
    let c = code;
    for (let t = 0; t < T; t++) {
      path.push(c % K);
      c = Math.floor(c / K);
    }
    let lp = Math.log(chain.startProb[path[0]!]!) + logB[path[0]!]!;
    for (let t = 1; t < T; t++) lp += Math.log(chain.transmat[path[t - 1]! * K + path[t]!]!) + logB[t * K + path[t]!]!;
    paths.push(path);
    logJoint.push(lp);
  }
  return { paths, logJoint };
}

/** p(condition(path) | y) by enumeration. */
function posterior(e: Enumeration, condition: (path: number[]) => boolean): number {
  const all = logSumExp(e.logJoint);
  const selected = e.logJoint.filter((_, n) => condition(e.paths[n]!));
  return Math.exp(logSumExp(selected) - all);
}

function randomChain(K: number, seed: number): MarkovChain {
  const rng = createRng(seed);
  const row = (): number[] => {
    const v = Array.from({ length: K }, () => 0.05 + rng.uniform());
    const s = v.reduce((a, b) => a + b, 0);
    return v.map((x) => x / s);
  };
  return { K, startProb: Float64Array.from(row()), transmat: Float64Array.from(Array.from({ length: K }, row).flat()) };
}

function randomLogEmissions(T: number, K: number, seed: number, shift = 0): Float64Array {
  const rng = createRng(seed);
  return Float64Array.from({ length: T * K }, () => shift - 3 * rng.uniform());
}

describe.each([
  { K: 2, T: 7, seed: 1, shift: 0, digits: 12 },
  { K: 3, T: 6, seed: 2, shift: 0, digits: 12 },
  { K: 4, T: 5, seed: 3, shift: 0, digits: 12 },
  // Emission densities of e^−5000 underflow to 0 in probability space; the log-space recursions must not care.
  // The enumeration itself is then exact only to ~3e4 · ε ≈ 4e−12 (log-joints of −30,000), hence 10 digits.
  { K: 3, T: 6, seed: 4, shift: -5000, digits: 10 },
])('against enumeration of all paths: K = $K, T = $T, shift $shift', ({ K, T, seed, shift, digits }) => {
  const chain = randomChain(K, seed);
  const logB = randomLogEmissions(T, K, seed + 100, shift);
  const e = enumerate(chain, logB, T);
  const fwd = forward(chain, logB);
  const logBeta = backward(chain, logB, fwd.logNormalizers);
  const gamma = smoothed(fwd, logBeta);

  it('log-likelihood = log Σ_paths p(s, y)', () => {
    expect(fwd.logLikelihood).toBeCloseTo(logSumExp(e.logJoint), 10);
    expect(fwd.logNormalizers.reduce((s, v) => s + v, 0)).toBe(fwd.logLikelihood);
  });

  it('filtered p(s_t | y_0..t) = the smoothed marginal of the series cut at t', () => {
    for (let t = 0; t < T; t++) {
      const cut = enumerate(chain, logB.subarray(0, (t + 1) * K), t + 1);
      for (let k = 0; k < K; k++) {
        expect(fwd.filtered[t * K + k]).toBeCloseTo(
          posterior(cut, (p) => p[t] === k),
          digits,
        );
        expect(Math.exp(fwd.logFiltered[t * K + k]!)).toBeCloseTo(fwd.filtered[t * K + k]!, 15);
      }
    }
  });

  it('smoothed p(s_t | y_0..T−1)', () => {
    for (let t = 0; t < T; t++)
      for (let k = 0; k < K; k++)
        expect(gamma[t * K + k]).toBeCloseTo(
          posterior(e, (p) => p[t] === k),
          digits,
        );
  });

  it('pairwise p(s_t = i, s_t+1 = j | y) and their sum over t', () => {
    const sum = new Float64Array(K * K);
    for (let t = 0; t + 1 < T; t++) {
      const xi = pairwiseProbabilities(chain, logB, fwd, logBeta, t);
      for (let i = 0; i < K; i++) {
        for (let j = 0; j < K; j++) {
          expect(xi[i * K + j]).toBeCloseTo(
            posterior(e, (p) => p[t] === i && p[t + 1] === j),
            digits,
          );
          sum[i * K + j] = sum[i * K + j]! + xi[i * K + j]!;
        }
      }
    }
    const counts = expectedTransitions(chain, logB, fwd, logBeta);
    for (let n = 0; n < K * K; n++) expect(counts[n]).toBeCloseTo(sum[n]!, 12);
  });

  it('Viterbi = the most probable path, with its log-probability', () => {
    let best = 0;
    for (let n = 1; n < e.logJoint.length; n++) if (e.logJoint[n]! > e.logJoint[best]!) best = n;
    const v = viterbi(chain, logB);
    expect(Array.from(v.path)).toEqual(e.paths[best]);
    expect(v.logProbability).toBeCloseTo(e.logJoint[best]!, 9);
  });
});

describe('filterStep', () => {
  const K = 4;
  const T = 60;
  const chain = randomChain(K, 9);
  const logB = randomLogEmissions(T, K, 10);

  it('continues a forward pass exactly: filtering the first 40 observations and stepping the rest equals filtering all 60', () => {
    const full = forward(chain, logB);
    const head = forward(chain, logB.subarray(0, 40 * K));
    let filtered: Float64Array = head.filtered.slice(39 * K, 40 * K);
    let logLikelihood = head.logLikelihood;
    for (let t = 40; t < T; t++) {
      const step = filterStep(filtered, logB.subarray(t * K, (t + 1) * K), chain.transmat);
      filtered = step.filtered;
      logLikelihood += step.logNormalizer;
      expect(Array.from(filtered)).toEqual(Array.from(full.filtered.subarray(t * K, (t + 1) * K)));
    }
    expect(logLikelihood).toBe(full.logLikelihood);
  });

  it('is the Bayes update of the one-step prediction', () => {
    const prev = Float64Array.of(0.7, 0.1, 0.1, 0.1);
    const row = Float64Array.of(-1, -2, -0.5, -4);
    const predicted = predictStep(prev, chain.transmat);
    const joint = Array.from(predicted, (p, k) => p * Math.exp(row[k]!));
    const evidence = joint.reduce((s, v) => s + v, 0);
    const step = filterStep(prev, row, chain.transmat);
    expect(step.logNormalizer).toBeCloseTo(Math.log(evidence), 14);
    joint.forEach((j, k) => expect(step.filtered[k]).toBeCloseTo(j / evidence, 14));
  });

  it('rejects a row of the wrong length, naming it', () => {
    expect(() => filterStep(Float64Array.of(0.5, 0.5), Float64Array.of(0), Float64Array.of(1, 0, 0, 1))).toThrow(/logEmissionRow: expected 2 entries/);
  });
});

describe('numerical robustness', () => {
  it('a 200,000-step series keeps a finite log-likelihood and normalised filtered and smoothed rows', () => {
    const K = 4;
    const T = 200_000;
    const chain = randomChain(K, 21);
    const logB = randomLogEmissions(T, K, 22, -50);
    const fwd = forward(chain, logB);
    expect(Number.isFinite(fwd.logLikelihood)).toBe(true);
    expect(fwd.logLikelihood).toBeLessThan(-50 * T);
    const gamma = smoothed(fwd, backward(chain, logB, fwd.logNormalizers));
    for (const t of [0, 1, T / 2, T - 1]) {
      let fs = 0;
      let gs = 0;
      for (let k = 0; k < K; k++) {
        fs += fwd.filtered[t * K + k]!;
        gs += gamma[t * K + k]!;
      }
      expect(fs).toBeCloseTo(1, 14);
      expect(gs).toBeCloseTo(1, 14);
    }
  });

  it('handles impossible transitions and a state ruled out by an emission of −∞', () => {
    // A left-to-right chain: 0 → 1 only. Observation 2 rules out state 0, so from then on the chain is in 1;
    // given that, s_1 = 0 has probability 0.5·0.5 / (0.5·0.5 + 0.5·1) = 1/3.
    const chain: MarkovChain = { K: 2, startProb: Float64Array.of(1, 0), transmat: Float64Array.of(0.5, 0.5, 0, 1) };
    const logB = Float64Array.of(0, 0, 0, 0, -Infinity, 0, 0, 0);
    const fwd = forward(chain, logB);
    expect(Array.from(fwd.filtered)).toEqual([1, 0, 0.5, 0.5, 0, 1, 0, 1]);
    const gamma = smoothed(fwd, backward(chain, logB, fwd.logNormalizers));
    [1, 0, 1 / 3, 2 / 3, 0, 1, 0, 1].forEach((g, n) => expect(gamma[n]).toBeCloseTo(g, 15));
    expect(Array.from(viterbi(chain, logB).path)).toEqual([0, 1, 1, 1]);
  });

  it('fails with hmm_zero_likelihood when no state can explain an observation', () => {
    const chain: MarkovChain = { K: 2, startProb: Float64Array.of(1, 0), transmat: Float64Array.of(1, 0, 0, 1) };
    const logB = Float64Array.of(0, 0, -Infinity, 0);
    expect(() => forward(chain, logB)).toThrow(expect.objectContaining({ code: 'hmm_zero_likelihood', message: expect.stringMatching(/observation 1/) }));
    expect(() => viterbi(chain, logB)).toThrow(expect.objectContaining({ code: 'hmm_zero_likelihood' }));
  });

  it('rejects mis-shaped inputs, naming the argument', () => {
    const chain = randomChain(3, 1);
    expect(() => forward(chain, new Float64Array(7))).toThrow(/logEmission: expected T × 3 entries/);
    expect(() => forward({ ...chain, startProb: Float64Array.of(1) }, new Float64Array(6))).toThrow(/startProb: expected 3 entries/);
    expect(() => forward({ ...chain, transmat: Float64Array.of(1) }, new Float64Array(6))).toThrow(/transmat: expected 9 entries/);
    const logB = new Float64Array(6);
    const fwd = forward(chain, logB);
    expect(() => backward(chain, logB, new Float64Array(1))).toThrow(/logNormalizers: expected 2 entries/);
    expect(() => pairwiseProbabilities(chain, logB, fwd, backward(chain, logB, fwd.logNormalizers), 1)).toThrow(/t: expected an integer in \[0, 0\]/);
  });
});
