/**
 * pipeline/hmm/baum-welch.ts: the M-step's scatter matrices for d = 4, written out for the regime model, are
 * the general loop's bit for bit (the published history must not depend on which of the two ran).
 */
import { describe, expect, it } from 'vitest';
import { eStep, scatterMatrices } from '../../../pipeline/hmm/baum-welch.js';
import { regimeLikeModel, sampleHmm } from './synthetic.js';

describe('scatterMatrices', () => {
  it('d = 4: the written-out loops give the general loop\'s numbers, bit for bit', () => {
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
