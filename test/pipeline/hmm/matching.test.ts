/**
 * pipeline/hmm/matching.ts: the Hungarian algorithm against brute force over all n! assignments (a second
 * implementation), matchStates recovering a known relabelling, and permuteModel relabelling every part of a
 * model consistently (the likelihood and the decoded regimes do not change).
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../../pipeline/random.js';
import { forward, viterbi } from '../../../pipeline/hmm/inference.js';
import { invertPermutation, matchStates, permuteModel, solveAssignment } from '../../../pipeline/hmm/matching.js';
import { logEmissions } from '../../../pipeline/hmm/model.js';
import { regimeLikeModel, sampleHmm } from './synthetic.js';

function permutations(n: number): number[][] {
  if (n === 1) return [[0]];
  return permutations(n - 1).flatMap((p) => Array.from({ length: n }, (_, i) => [...p.slice(0, i), n - 1, ...p.slice(i)]));
}

const total = (cost: ArrayLike<number>, n: number, assignment: ArrayLike<number>): number =>
  Array.from({ length: n }, (_, i) => cost[i * n + assignment[i]!]!).reduce((s, v) => s + v, 0);

describe('solveAssignment', () => {
  it.each([
    { name: '1×1', cost: [7], assignment: [0] },
    { name: 'identity is best', cost: [1, 9, 9, 1], assignment: [0, 1] },
    { name: 'swap is best', cost: [9, 1, 1, 9], assignment: [1, 0] },
    // A textbook 3×3: the optimum 1 + 2 + 2 = 5 takes (0,1), (1,0), (2,2).
    { name: 'textbook 3×3', cost: [4, 1, 3, 2, 0, 5, 3, 2, 2], assignment: [1, 0, 2] },
    { name: 'negative costs', cost: [-1, -5, -3, -2], assignment: [1, 0] },
  ])('$name', ({ cost, assignment }) => {
    expect(Array.from(solveAssignment(Float64Array.from(cost), Math.sqrt(cost.length)))).toEqual(assignment);
  });

  it.each([2, 3, 4, 5, 6, 7])('finds the minimum of brute force over all %i! assignments (50 random matrices)', (n) => {
    const rng = createRng(1000 + n);
    const all = permutations(n);
    for (let trial = 0; trial < 50; trial++) {
      // Integer costs make ties common, which is where an assignment algorithm goes wrong.
      const cost = Float64Array.from({ length: n * n }, () => rng.int(10));
      const assignment = solveAssignment(cost, n);
      expect(new Set(assignment).size).toBe(n);
      const best = Math.min(...all.map((p) => total(cost, n, p)));
      expect(total(cost, n, assignment)).toBe(best);
    }
  });

  it('rejects a non-square or non-finite cost matrix', () => {
    expect(() => solveAssignment(new Float64Array(3), 2)).toThrow(/cost: expected 2×2 entries, got 3/);
    expect(() => solveAssignment(Float64Array.of(1, Number.NaN, 1, 1), 2)).toThrow(/cost: entry 1 is NaN/);
  });
});

describe('matchStates', () => {
  it('recovers a known relabelling of slightly moved means', () => {
    const prev = [Float64Array.of(0, 0), Float64Array.of(2, 0), Float64Array.of(0, 2), Float64Array.of(2, 2)];
    const perm = [2, 0, 3, 1]; // new state perm[k] is previous state k
    const moved = new Array<Float64Array>(4);
    perm.forEach((p, k) => (moved[p] = Float64Array.from(prev[k]!, (v) => v + 0.1 * (k - 1.5))));
    expect(Array.from(matchStates(prev, moved))).toEqual(perm);
  });

  it('minimises the total distance, not each state greedily', () => {
    // Previous means 0 and 1, new means 0.6 and −1. Greedy gives previous 0 its nearest, 0.6, and leaves
    // previous 1 the −1: total 0.6 + 2 = 2.6. The other assignment costs 1 + 0.4 = 1.4.
    const perm = matchStates([Float64Array.of(0), Float64Array.of(1)], [Float64Array.of(0.6), Float64Array.of(-1)]);
    expect(Array.from(perm)).toEqual([1, 0]);
  });

  it('rejects different numbers of states or dimensions', () => {
    expect(() => matchStates([Float64Array.of(0)], [Float64Array.of(0), Float64Array.of(1)])).toThrow(/newMeans: expected 1 means, got 2/);
    expect(() => matchStates([Float64Array.of(0)], [Float64Array.of(0, 1)])).toThrow(/newMeans: mean 0 has 2 entries, expected 1/);
    expect(() => matchStates([], [])).toThrow(/prevMeans: expected at least one mean/);
  });
});

describe('permuteModel', () => {
  const model = regimeLikeModel(3);
  const { X } = sampleHmm(model, 300, 5);
  const perm = Int32Array.of(3, 1, 0, 2);
  const permuted = permuteModel(model, perm);

  it('moves every parameter of state perm[k] to label k', () => {
    for (let k = 0; k < 4; k++) {
      expect(permuted.startProb[k]).toBe(model.startProb[perm[k]!]);
      expect(permuted.means[k]).toEqual(model.means[perm[k]!]);
      expect(permuted.covars[k]).toEqual(model.covars[perm[k]!]);
      for (let l = 0; l < 4; l++) expect(permuted.transmat[k * 4 + l]).toBe(model.transmat[perm[k]! * 4 + perm[l]!]);
    }
  });

  it('leaves the likelihood unchanged and relabels the decoded path', () => {
    const original = logEmissions(model, X);
    const relabelled = logEmissions(permuted, X);
    expect(forward(permuted, relabelled).logLikelihood).toBeCloseTo(forward(model, original).logLikelihood, 9);
    const inverse = invertPermutation(perm);
    const path = viterbi(model, original).path;
    expect(Array.from(viterbi(permuted, relabelled).path)).toEqual(Array.from(path, (s) => inverse[s]!));
  });

  it('is undone by the inverse permutation', () => {
    const back = permuteModel(permuted, invertPermutation(perm));
    expect(back).toEqual(model);
  });

  it.each([
    { perm: [0, 1, 2], problem: /perm: expected 4 entries/ },
    { perm: [0, 1, 1, 2], problem: /perm: not a permutation of 0…3: 0,1,1,2/ },
    { perm: [0, 1, 2, 4], problem: /perm: not a permutation/ },
  ])('rejects $perm', ({ perm: bad, problem }) => {
    expect(() => permuteModel(model, bad)).toThrow(problem);
  });
});
