/**
 * The `regime_change` event (docs/decisions/0023-webhook-delivery.md): one delivery per webhook of an account whose
 * tier includes it (Pro and above) for each broadcast whose regime differs from the one before it, so a transition
 * is delivered if and only if it was published. A broadcast that repeats the regime in force, or the very first
 * broadcast (there is no "from"), queues nothing.
 *
 * The signal service subscribes to the regime broadcast stream (src/store/regime-broadcasts.ts), which the engine
 * writes too, rather than being called by its writers: `queueRegimeChanges` reads the broadcasts after the
 * subscriber's cursor (event_cursors), queues their events and moves the cursor in one transaction, so each
 * committed broadcast is read once and a rolled-back one never. The webhook worker runs it before each round.
 */
import { randomUUID } from 'node:crypto';
import type { Sql, TransactionSql } from 'postgres';
import { EXPOSURE } from '../../../pipeline/regime/signals.js';
import { broadcastsAfter, type RegimeBroadcast } from '../../store/regime-broadcasts.js';
import { REGIME_LABELS, type Regime } from '../../core/vocabulary.js';
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
export function regimeChangeEvent(
  previous: Pick<RegimeBroadcast, 'regime'> | null,
  next: Pick<RegimeBroadcast, 'regime' | 'risk_score' | 'date' | 'published_at'> & Partial<Pick<RegimeBroadcast, 'available_at'>>,
  id: string = randomUUID(),
): RegimeChangeEvent | null {
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

/** The subscriber's name in event_cursors. */
export const REGIME_CHANGE_SUBSCRIBER = 'webhooks.regime_change';

/** Broadcasts read per transaction: a long backlog is taken in several. */
const BATCH = 500;

/**
 * Queues the `regime_change` deliveries of every broadcast committed after the subscriber's cursor, oldest first,
 * and moves the cursor past them, in one transaction per batch (the cursor row's lock makes concurrent callers
 * take turns). Returns how many deliveries were queued.
 */
export async function queueRegimeChanges(sql: Sql): Promise<number> {
  let queued = 0;
  for (;;) {
    const step = await sql.begin(async (tx) => {
      const [cursor] = await tx<Array<{ last_id: string }>>`
        select last_id from event_cursors where subscriber = ${REGIME_CHANGE_SUBSCRIBER} for update`;
      if (!cursor) return { read: 0, queued: 0 };
      const after = Number(cursor.last_id);
      const [previous] = await tx<Array<{ id: string; regime: Regime }>>`
        select id, regime from regime_broadcasts where id <= ${after} order by id desc limit 1`;
      const next = await broadcastsAfter(tx, after, BATCH);
      let n = 0;
      let before: Pick<RegimeBroadcast, 'regime'> | null = previous ?? null;
      for (const b of next) {
        const event = regimeChangeEvent(before, b);
        if (event) n += await enqueueEvent(tx, event);
        before = b;
      }
      const last = next.at(-1);
      if (last) await tx`update event_cursors set last_id = ${last.id} where subscriber = ${REGIME_CHANGE_SUBSCRIBER}`;
      return { read: next.length, queued: n };
    });
    queued += step.queued;
    if (step.read < BATCH) return queued;
  }
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
