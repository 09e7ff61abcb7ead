/**
 * From regime probabilities to the published signal fields (docs/decisions/0033-signal-fields.md):
 * - risk_score = 1 − Σ p(regime) × exposure(regime), exposures expansion 1.00, recovery 0.75, tightening 0.25,
 *   risk_off 0.00, so risk_score is in [0, 1];
 * - confidence on the top probability: HIGH ≥ 0.70, MODERATE ≥ 0.50, LOW below;
 * - persistence_days: consecutive days with the same most likely regime, today included;
 * - expected_duration_remaining_days: the geometric stay a_ii / (1 − a_ii) of the current state.
 * Pure functions over numbers.
 */
import { REGIMES, type Regime } from '../../src/core/vocabulary.js';

/** Suggested equity exposure per regime (docs/decisions/0022-equity-exposure.md). */
export const EXPOSURE: Readonly<Record<Regime, number>> = Object.freeze({ expansion: 1, recovery: 0.75, tightening: 0.25, risk_off: 0 });

export type Confidence = 'HIGH' | 'MODERATE' | 'LOW';

/** Probabilities in REGIMES. */
export function riskScore(probs: ArrayLike<number>): number {
  let exposure = 0;
  for (let i = 0; i < REGIMES.length; i++) exposure += (probs[i] ?? 0) * EXPOSURE[REGIMES[i] as Regime];
  return Math.min(1, Math.max(0, 1 - exposure));
}

export function mostLikely(probs: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < probs.length; i++) if ((probs[i] ?? 0) > (probs[best] ?? 0)) best = i;
  return best;
}

export function confidence(top: number): Confidence {
  return top >= 0.7 ? 'HIGH' : top >= 0.5 ? 'MODERATE' : 'LOW';
}

/** a_ii / (1 − a_ii), rounded to whole days; a state that never leaves is capped at 10 years of trading days. */
export function expectedRemainingDays(stayProbability: number): number {
  if (stayProbability >= 1) return 2520;
  return Math.min(2520, Math.round(stayProbability / (1 - stayProbability)));
}

/** Persistence of each day's most likely regime: 1 on a change, +1 while it holds. */
export function persistence(labels: ArrayLike<number>, before = { label: -1, days: 0 }): Int32Array {
  const out = new Int32Array(labels.length);
  let prev = before.label;
  let run = before.days;
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i] as number;
    run = l === prev ? run + 1 : 1;
    prev = l;
    out[i] = run;
  }
  return out;
}
