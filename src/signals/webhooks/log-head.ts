/**
 * The `log_head` event: queued in the transaction that appends days to the track log (../store/track-log.ts),
 * one delivery per webhook of an account whose tier includes webhooks (Pro and above), carrying the new signed
 * tree head, so that a subscriber keeps every head without asking for it (`tradeseal signals verify --head`
 * proves days against any of them). A publication that logs nothing signs no head and queues nothing. Queued
 * with ./regime-change.ts `enqueueEvent`.
 */
import { randomUUID } from 'node:crypto';
import type { SignedTreeHead } from '../../core/log/tree-head.js';
import type { TrackLeafKind } from '../track/leaf.js';

export interface LogHeadEvent {
  /** The event's id, the same in every account's delivery of it. */
  id: string;
  type: 'log_head';
  /** When the head was signed, ISO 8601 UTC. */
  created_at: string;
  /** The signed tree head, as `GET /v1/log/head` answers it. */
  log_head: SignedTreeHead;
  /** The leaves the head added, by kind, and the days they log (oldest and newest). */
  appended: Record<TrackLeafKind, number> & { first_date: string; last_date: string };
}

/** The event of a head that added `leaves` (at least one). Pure. */
export function logHeadEvent(head: SignedTreeHead, leaves: ReadonlyArray<{ date: string; kind: TrackLeafKind }>, id: string = randomUUID()): LogHeadEvent {
  const count = (kind: TrackLeafKind): number => leaves.filter((l) => l.kind === kind).length;
  const dates = leaves.map((l) => l.date).sort();
  return {
    id,
    type: 'log_head',
    created_at: new Date(head.timestamp).toISOString(),
    log_head: head,
    appended: { live: count('live'), backfill: count('backfill'), republication: count('republication'), first_date: dates[0]!, last_date: dates.at(-1)! },
  };
}
