/**
 * The research's switching rules (bench/support/switching-rule.ts): the regime a variant of
 * `npm run research:signal` publishes from each day's probabilities.
 */
import { describe, expect, it } from 'vitest';
import { switchedRegimes } from '../../bench/support/switching-rule.js';
import { mostLikely } from '../../pipeline/regime/signals.js';

describe('switchedRegimes: switches only when the model is clear, and to risk_off at once', () => {
  const SWITCH_AT = 0.8;
  // Regime indexes: 0 expansion, 1 recovery, 2 tightening, 3 risk_off.
  const expansion = [0.9, 0.05, 0.05, 0];
  const leaning = [0.3, 0.65, 0.05, 0];
  const clear = [0.1, 0.85, 0.05, 0];
  const stress = [0.4, 0.1, 0.1, 0.4000001];

  it(`holds the regime of the day before until another reaches p >= ${SWITCH_AT}`, () => {
    expect([...switchedRegimes([expansion, leaning, leaning, clear, leaning], { switchAt: SWITCH_AT })]).toEqual([0, 0, 0, 1, 1]);
  });

  it('switches at exactly the threshold, not below it', () => {
    const at = [0.2, SWITCH_AT, 0, 0];
    const below = [0.2, SWITCH_AT - 1e-9, 0, 0];
    expect([...switchedRegimes([expansion, below], { switchAt: SWITCH_AT })]).toEqual([0, 0]);
    expect([...switchedRegimes([expansion, at], { switchAt: SWITCH_AT })]).toEqual([0, 1]);
  });

  it('publishes risk_off the first day it is the most likely, however unclear', () => {
    expect([...switchedRegimes([expansion, stress, leaning], { switchAt: SWITCH_AT })]).toEqual([0, 3, 3]);
  });

  it('starts from the most likely regime, or from the regime of the day before the first', () => {
    expect([...switchedRegimes([leaning], { switchAt: SWITCH_AT })]).toEqual([1]);
    expect([...switchedRegimes([leaning], { switchAt: SWITCH_AT }, 2)]).toEqual([2]);
  });

  it('uses nothing after a day: the regimes of a prefix are the prefix of the regimes, and a run resumed from any day agrees', () => {
    const days = [expansion, leaning, clear, leaning, stress, expansion, leaning, clear, expansion];
    const all = [...switchedRegimes(days, { switchAt: SWITCH_AT })];
    for (let n = 1; n <= days.length; n++) {
      expect([...switchedRegimes(days.slice(0, n), { switchAt: SWITCH_AT })]).toEqual(all.slice(0, n));
      expect([...switchedRegimes(days.slice(n), { switchAt: SWITCH_AT }, all[n - 1])]).toEqual(all.slice(n));
    }
  });

  it('follows the most likely regime every day with no threshold and no minimum run (what the pipeline publishes)', () => {
    const days = [expansion, leaning, stress, clear];
    expect([...switchedRegimes(days, {})]).toEqual(days.map((p) => mostLikely(p)));
  });

  it('with a minimum run, switches on the day a new regime has led that many days in a row; risk_off still at once', () => {
    expect([...switchedRegimes([expansion, clear, clear, clear, expansion], { minDays: 3 })]).toEqual([0, 0, 0, 1, 1]);
    expect([...switchedRegimes([expansion, clear, expansion, clear, clear], { minDays: 2 })]).toEqual([0, 0, 0, 0, 1]);
    expect([...switchedRegimes([expansion, stress, expansion], { minDays: 3 })]).toEqual([0, 3, 3]);
  });
});
