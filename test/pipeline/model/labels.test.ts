/** The label rule names states by what they do, so the order of the fitted states cannot change a label. */
import { describe, expect, it } from 'vitest';
import { labelStates, type StateProfile } from '../../../pipeline/model/labels.js';

const calm: StateProfile = { stress: -0.8, equity: 0.0008, tightening: -0.2 };
const stressed: StateProfile = { stress: 1.9, equity: -0.002, tightening: 0.1 };
const hawkish: StateProfile = { stress: 0.1, equity: 0.0002, tightening: 1.2 };
const healing: StateProfile = { stress: 0.4, equity: 0.0011, tightening: -0.6 };

const permutations = (xs: number[]): number[][] =>
  xs.length <= 1 ? [xs] : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));

describe('labelStates', () => {
  it('names risk_off the most stressed, expansion the calmest with rising equity, tightening the hawkish one', () => {
    const names = labelStates([healing, stressed, calm, hawkish]);
    expect(names).toEqual({ expansion: 2, recovery: 0, tightening: 3, risk_off: 1 });
  });

  it('gives every one of the 24 orderings of the same states the same labels', () => {
    const profiles = [calm, stressed, hawkish, healing];
    for (const perm of permutations([0, 1, 2, 3])) {
      const names = labelStates(perm.map((i) => profiles[i]!));
      const named = Object.fromEntries(Object.entries(names).map(([regime, state]) => [regime, profiles[perm[state]!]]));
      expect(named).toEqual({ expansion: calm, recovery: healing, tightening: hawkish, risk_off: stressed });
    }
  });

  it('falls back to the lowest stress for expansion when no state has rising equity', () => {
    const falling = [calm, stressed, hawkish, healing].map((p) => ({ ...p, equity: -0.001 }));
    expect(labelStates(falling).expansion).toBe(0);
  });

  it('refuses anything but four states', () => {
    expect(() => labelStates([calm, stressed, hawkish])).toThrow(/4 state profiles/);
  });
});
