/**
 * The regime broadcast as a record: what both services read of the regime in force. The signal service's pipeline
 * and an operator publish broadcasts into one append-only stream (src/store/regime-broadcasts.ts); the engine
 * enforces the newest, and the signal service queues a `regime_change` webhook for each change of regime. The
 * broadcast hash (`mta.hash`, a heartbeat's `mta_ref`) covers the fields of `RegimeState`.
 */
import { hashJson } from '../crypto/hash.js';
import { REGIMES, type Regime } from '../vocabulary.js';

export type Probabilities = Record<Regime, number>;

/** The fields the broadcast hash (`mta.hash`, a heartbeat's `mta_ref`) covers. */
export interface RegimeState {
  date: string;
  regime: Regime;
  regime_id: number;
  risk_score: number;
  probabilities: Probabilities;
  model_version: string;
}

export interface RegimeBroadcast extends RegimeState {
  id: number;
  source: 'pipeline' | 'manual';
  reason: string | null;
  published_by: string | null;
  published_at: Date;
  /** When this regime content (this hash) took effect: a repeat broadcast keeps the earlier time. */
  effective_since: Date;
  /** The broadcast day's `available_at` (ISO-8601 UTC) when the pipeline broadcasts it; null for an operator's. */
  available_at: string | null;
  hash: string;
}

/** SHA-256 over the JCS of `{date, regime, regime_id, risk_score, probabilities, model_version}`. */
export const broadcastHash = (s: RegimeState): string =>
  hashJson({
    date: s.date,
    regime: s.regime,
    regime_id: s.regime_id,
    risk_score: s.risk_score,
    probabilities: s.probabilities,
    model_version: s.model_version,
  });

/** A manual broadcast states certainty: probability 1 on the named regime. */
export const certainProbabilities = (regime: Regime): Probabilities => Object.fromEntries(REGIMES.map((r) => [r, r === regime ? 1 : 0])) as Probabilities;
