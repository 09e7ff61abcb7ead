/**
 * The `regime_change` event (docs/decisions/0023-webhook-delivery.md): queued in the transaction that inserts a
 * broadcast whose regime differs from the one in force (src/engine/store/regime.ts), one delivery per
 * webhook of an account whose tier includes it (Pro and above), so a transition is delivered if and only if
 * it was published. A broadcast that repeats the regime in force, or the very first broadcast (there is no
 * "from"), queues nothing.
 */
import { randomUUID } from 'node:crypto';
import type { Sql, TransactionSql } from 'postgres';
import { EXPOSURE } from '../../../pipeline/regime/signals.js';
import type { RegimeBroadcast } from '../../engine/store/regime.js';
import { REGIME_LABELS, type Regime } from '../../engine/vocabulary.js';
import { allows, TIERS } from '../tiers.js';

export interface RegimeChange {
  from: Regime;
  to: Regime;
  from_label: string;
  to_label: string;
  /** The suggested equity exposure of `to`, as a percent string (`25%`). */
  equity_exposure: string;
  risk_score: number;
  /** The broadcast's data day, YYYY-MM-DD. */
  date: string;
  /** When that day was published (ISO 8601 UTC), for a pipeline broadcast; null for an operator's. */
  available_at: string | null;
}

export interface RegimeChangeEvent {
  /** The event's id, the same in every account's delivery of it (each delivery has its own id too). */
  id: string;
  type: 'regime_change';
  /** When the broadcast was published, ISO 8601 UTC. */
  created_at: string;
  regime_change: RegimeChange;
}

/** The tiers whose webhooks receive events: those with Pro access. */
export const WEBHOOK_TIERS: readonly string[] = TIERS.filter((t) => allows(t, 'pro'));

export const exposurePercent = (regime: Regime): string => `${Math.round(EXPOSURE[regime] * 100)}%`;

/** The event of a transition from `previous` to `next`, or null when the regime did not change. Pure. */
export function regimeChangeEvent(previous: Pick<RegimeBroadcast, 'regime'> | null, next: Pick<RegimeBroadcast, 'regime' | 'risk_score' | 'date' | 'published_at'> & Partial<Pick<RegimeBroadcast, 'available_at'>>, id: string = randomUUID()): RegimeChangeEvent | null {
  if (!previous || previous.regime === next.regime) return null;
  return {
    id,
    type: 'regime_change',
    created_at: next.published_at.toISOString(),
    regime_change: {
      from: previous.regime,
      to: next.regime,
      from_label: REGIME_LABELS[previous.regime],
      to_label: REGIME_LABELS[next.regime],
      equity_exposure: exposurePercent(next.regime),
      risk_score: next.risk_score,
      date: next.date,
      available_at: next.available_at ?? null,
    },
  };
}

/**
 * Queues the event of the transition `previous` → `next`, if any, for every webhook of a Pro-or-above
 * account. Run it in the transaction that inserts `next`, so the event commits or rolls back with it.
 * Returns how many deliveries were queued.
 */
export async function enqueueRegimeChange(tx: Sql | TransactionSql, previous: RegimeBroadcast | null, next: RegimeBroadcast): Promise<number> {
  const event = regimeChangeEvent(previous, next);
  return event ? enqueueEvent(tx, event) : 0;
}

/** Queues `event` for every webhook of a Pro-or-above account, in the caller's transaction; how many deliveries were queued. */
export async function enqueueEvent(tx: Sql | TransactionSql, event: { type: string }): Promise<number> {
  const rows = await tx`
    insert into webhook_deliveries (delivery_id, account_id, event, payload)
    select gen_random_uuid(), w.account_id, ${event.type}, ${tx.json(event as never)}
    from signal_webhooks w join signal_accounts a using (account_id)
    where a.tier = any(${WEBHOOK_TIERS as string[]}::text[])
    returning delivery_id`;
  return rows.length;
}
