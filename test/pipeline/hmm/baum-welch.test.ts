/**
 * pipeline/hmm/baum-welch.ts: the M-step's weighted sums and scatter matrices for d = 4, written out for the
 * regime model, are the general loops' bit for bit (the published history must not depend on which ran).
 */
import { describe, expect, it } from 'vitest';
import { eStep, scatterMatrices, weightedSums } from '../../../pipeline/hmm/baum-welch.js';
import { regimeLikeModel, sampleHmm } from './synthetic.js';

describe('scatterMatrices', () => {
  it("d = 4: the written-out loops give the general loop's numbers, bit for bit", () => {
    const model = regimeLikeModel(4);
    const { X } = sampleHmm(model, 3000, 5);
    const { gamma } = eStep(model, X);
    // Some responsibilities exactly 0, which both skip.
    for (let t = 0; t < 40; t++) gamma[t * 4 + 2] = 0;
    const means = model.means.map((m) => m.map((v) => v + 0.125));
    const unrolled = scatterMatrices(X, gamma, means, 4, 4);
    const general = scatterMatrices(X, gamma, means, 4, 4, false);
    unrolled.forEach((s, k) => s.forEach((v, i) => expect(Object.is(v, general[k]![i]), `state ${k}, entry ${i}`).toBe(true)));
    expect(unrolled[0]![0]).toBeGreaterThan(0);
  });
});

describe('weightedSums', () => {
  it("d = 4: the written-out loop gives the general loop's numbers, bit for bit, and Σ_t γ_t(k) x_t", () => {
    const model = regimeLikeModel(4);
    const { X } = sampleHmm(model, 3000, 6);
    const { gamma } = eStep(model, X);
    const unrolled = weightedSums(X, gamma, 4, 4);
    const general = weightedSums(X, gamma, 4, 4, false);
    unrolled.forEach((v, i) => expect(Object.is(v, general[i]), `entry ${i}`).toBe(true));
    let direct = 0;
    for (let t = 0; t < X.length; t++) direct += gamma[t * 4 + 2]! * X[t]![1]!;
    expect(unrolled[2 * 4 + 1]).toBeCloseTo(direct, 9);
  });
});
