/**
 * An operator's manual broadcast, for the HTTP API (`POST /engine/admin/regime`) and the CLI
 * (`tradeseal regime publish`) alike: the defaults of what the request leaves out are decided here, once.
 * The broadcast's `date` is its data day (default: today, UTC), from which the policy's maximum age counts.
 */
import type { Sql } from 'postgres';
import { publishManual, type Probabilities, type RegimeBroadcast } from '../store/regime.js';
import type { Regime } from '../vocabulary.js';

export interface ManualBroadcastBody {
  regime: Regime;
  risk_score: number;
  reason: string;
  date?: string;
  probabilities?: Probabilities;
  model_version?: string;
}

/** The model version stated by a manual broadcast that names none. */
export const MANUAL_MODEL_VERSION = 'manual';

export function publishOperatorBroadcast(sql: Sql, body: ManualBroadcastBody, publishedBy: string, now: number): Promise<RegimeBroadcast> {
  return publishManual(sql, {
    date: body.date ?? new Date(now).toISOString().slice(0, 10),
    regime: body.regime,
    risk_score: body.risk_score,
    ...(body.probabilities ? { probabilities: body.probabilities } : {}),
    model_version: body.model_version ?? MANUAL_MODEL_VERSION,
    reason: body.reason,
    published_by: publishedBy,
  });
}
