/** The published signal fields derived from regime probabilities. */
import { describe, expect, it } from 'vitest';
import { confidence, expectedRemainingDays, mostLikely, persistence, publishedRegimes, riskScore } from '../../pipeline/regime/signals.js';

describe('riskScore = 1 − Σ p × exposure (1, 0.75, 0.25, 0)', () => {
  it.each([
    [[1, 0, 0, 0], 0],
    [[0, 1, 0, 0], 0.25],
    [[0, 0, 1, 0], 0.75],
    [[0, 0, 0, 1], 1],
    [[0.25, 0.25, 0.25, 0.25], 1 - (1 + 0.75 + 0.25) / 4],
    [[0.1, 0.2, 0.3, 0.4], 1 - (0.1 + 0.15 + 0.075)],
  ])('%j → %d', (p, expected) => {
    expect(riskScore(p)).toBeCloseTo(expected, 12);
  });
});

describe('confidence on the top probability', () => {
  it.each([[0.7, 'HIGH'], [0.6999, 'MODERATE'], [0.5, 'MODERATE'], [0.4999, 'LOW'], [1, 'HIGH']])('%d → %s', (p, c) => {
    expect(confidence(p as number)).toBe(c);
  });
});

describe('mostLikely, persistence and expected remaining duration', () => {
  it('picks the first of equal maxima and the largest otherwise', () => {
    expect(mostLikely([0.1, 0.6, 0.2, 0.1])).toBe(1);
    expect(mostLikely([0.4, 0.4, 0.1, 0.1])).toBe(0);
  });

  it('counts consecutive days of one regime and carries a run across a boundary', () => {
    expect([...persistence([0, 0, 1, 1, 1, 0])]).toEqual([1, 2, 1, 2, 3, 1]);
    expect([...persistence([2, 2], { label: 2, days: 5 })]).toEqual([6, 7]);
  });

  it('is the geometric stay a/(1 − a)', () => {
    expect(expectedRemainingDays(0.9)).toBe(9);
    expect(expectedRemainingDays(0.98)).toBe(49);
    expect(expectedRemainingDays(0.5)).toBe(1);
    expect(expectedRemainingDays(1)).toBe(2520);
  });
});

describe('publishedRegimes (the research\'s switching rule): switches only when the model is clear, and to risk_off at once', () => {
  const SWITCH_AT = 0.8;
  // Regime indexes: 0 expansion, 1 recovery, 2 tightening, 3 risk_off.
  const expansion = [0.9, 0.05, 0.05, 0];
  const leaning = [0.3, 0.65, 0.05, 0];
  const clear = [0.1, 0.85, 0.05, 0];
  const stress = [0.4, 0.1, 0.1, 0.4000001];

  it(`holds the regime of the day before until another reaches p >= ${SWITCH_AT}`, () => {
    expect([...publishedRegimes([expansion, leaning, leaning, clear, leaning], -1, SWITCH_AT)]).toEqual([0, 0, 0, 1, 1]);
  });

  it('switches at exactly the threshold, not below it', () => {
    const at = [0.2, SWITCH_AT, 0, 0];
    const below = [0.2, SWITCH_AT - 1e-9, 0, 0];
    expect([...publishedRegimes([expansion, below], -1, SWITCH_AT)]).toEqual([0, 0]);
    expect([...publishedRegimes([expansion, at], -1, SWITCH_AT)]).toEqual([0, 1]);
  });

  it('publishes risk_off the first day it is the most likely, however unclear', () => {
    expect([...publishedRegimes([expansion, stress, leaning], -1, SWITCH_AT)]).toEqual([0, 3, 3]);
  });

  it('starts from the most likely regime, or from the regime of the day before the first', () => {
    expect([...publishedRegimes([leaning], -1, SWITCH_AT)]).toEqual([1]);
    expect([...publishedRegimes([leaning], 2, SWITCH_AT)]).toEqual([2]);
  });

  it('uses nothing after a day: the regimes of a prefix are the prefix of the regimes, and a run resumed from any day agrees', () => {
    const days = [expansion, leaning, clear, leaning, stress, expansion, leaning, clear, expansion];
    const all = [...publishedRegimes(days, -1, SWITCH_AT)];
    for (let n = 1; n <= days.length; n++) {
      expect([...publishedRegimes(days.slice(0, n), -1, SWITCH_AT)]).toEqual(all.slice(0, n));
      expect([...publishedRegimes(days.slice(n), all[n - 1]!, SWITCH_AT)]).toEqual(all.slice(n));
    }
  });

  it('follows the most likely regime every day with a threshold of 0', () => {
    const days = [expansion, leaning, stress, clear];
    expect([...publishedRegimes(days, -1, 0)]).toEqual(days.map((p) => mostLikely(p)));
  });
});
