/** The published signal fields derived from regime probabilities. */
import { describe, expect, it } from 'vitest';
import { confidence, expectedRemainingDays, mostLikely, persistence, riskScore } from '../../pipeline/regime/signals.js';

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
  it.each([
    [0.7, 'HIGH'],
    [0.6999, 'MODERATE'],
    [0.5, 'MODERATE'],
    [0.4999, 'LOW'],
    [1, 'HIGH'],
  ])('%d → %s', (p, c) => {
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
