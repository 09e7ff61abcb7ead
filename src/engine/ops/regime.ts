/**
 * An operator's manual broadcast, for the HTTP API (`POST /engine/admin/regime`) and the CLI
 * (`tradeseal regime publish`) alike: the defaults of what the request leaves out are decided here, once.
 * The broadcast's `date` is its data day (default: today, UTC), from which the policy's maximum age counts.
 * Publishing and releasing an override are written to the audit log (`regime.publish`, `regime.release`) in
 * the same transaction.
 */
import type { Sql } from 'postgres';
import { withTransaction } from '../../store/transaction.js';
import { appendAudit } from '../audit/append.js';
import { publishManual, releaseOverride, type Probabilities, type RegimeBroadcast, type Release } from '../../store/regime-broadcasts.js';
import type { Regime } from '../../core/vocabulary.js';

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
  return withTransaction(sql, async (tx) => {
    const b = await publishManual(tx, {
      date: body.date ?? new Date(now).toISOString().slice(0, 10),
      regime: body.regime,
      risk_score: body.risk_score,
      ...(body.probabilities ? { probabilities: body.probabilities } : {}),
      model_version: body.model_version ?? MANUAL_MODEL_VERSION,
      reason: body.reason,
      published_by: publishedBy,
    });
    await appendAudit(tx, { actor: publishedBy, action: 'regime.publish', target_id: null, details: broadcastDetails(b) });
    return b;
  });
}

/** Lifts the operator's override (src/store/regime-broadcasts.ts `releaseOverride`), with its audit entry. */
export function releaseOperatorOverride(sql: Sql, releasedBy: string, reason: string | null): Promise<Release> {
  return withTransaction(sql, async (tx) => {
    const r = await releaseOverride(tx, releasedBy, reason);
    await appendAudit(tx, {
      actor: releasedBy,
      action: 'regime.release',
      target_id: null,
      details: { released: broadcastDetails(r.released), broadcast: broadcastDetails(r.broadcast), reason },
    });
    return r;
  });
}

const broadcastDetails = (b: RegimeBroadcast): Record<string, unknown> => ({
  broadcast_id: b.id,
  date: b.date,
  regime: b.regime,
  risk_score: b.risk_score,
  model_version: b.model_version,
  source: b.source,
  reason: b.reason,
  hash: b.hash,
});
