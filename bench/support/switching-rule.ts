/**
 * The switching rules the research tried (`npm run research:signal`; research notes: pipeline/README.md): from each
 * day's regime probabilities (oldest first, REGIMES indexes), the regime a variant publishes. The regime of
 * the day before holds until the model's most likely regime has led `minDays` days in a row (1: today) with a
 * probability of at least `switchAt`; a move to risk_off is taken at once, so the stress regime is never
 * delayed. With neither (switchAt 0, minDays 1) it is the most likely regime every day, as the pipeline
 * publishes (`tradeseal-regime-2` and `-3` published switchAt 0.8). `before` is the regime of the day before
 * the first (−1: none). Only each day's own probabilities and the days before are used: no look-ahead.
 */
import { mostLikely } from '../../pipeline/regime/signals.js';
import { REGIMES } from '../../src/core/vocabulary.js';

const RISK_OFF = REGIMES.indexOf('risk_off');

export interface SwitchingRule {
  /** The probability a new regime needs (0: any). */
  switchAt?: number;
  /** Days in a row a new regime other than risk_off must lead (1: today only). */
  minDays?: number;
}

export function switchedRegimes(probs: ReadonlyArray<ArrayLike<number>>, rule: SwitchingRule, before = -1): Int32Array {
  const switchAt = rule.switchAt ?? 0;
  const minDays = rule.minDays ?? 1;
  const out = new Int32Array(probs.length);
  let held = before;
  let lead = -1;
  let run = 0;
  probs.forEach((p, i) => {
    const top = mostLikely(p);
    run = top === lead ? run + 1 : 1;
    lead = top;
    if (held < 0 || top === RISK_OFF || (run >= minDays && (p[top] ?? 0) >= switchAt)) held = top;
    out[i] = held;
  });
  return out;
}
