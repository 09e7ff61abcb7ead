/**
 * Anchoring the audit chain: signing a checkpoint of its head (./checkpoint.ts) and keeping it in the store,
 * and reading the newest one. The server does it every `AUDIT_ANCHOR_INTERVAL_MS` when the chain grew
 * (./anchorer.ts); `tradeseal engine audit-log checkpoint` does it on demand.
 *
 * - One anchor at a time: a pass takes the `auditAnchor` transaction-scoped advisory lock without waiting
 *   (another server holding it is anchoring right now: this one skips its turn); the primary key on `size`
 *   refuses a second checkpoint of the same size where advisory locks do not exclude (the embedded store).
 * - No full count: the new checkpoint's position is the previous checkpoint's plus the entries appended after
 *   it (their `seq` above its `seq`), so a pass reads only what is new. Entries commit in `seq` order (appends
 *   hold the chain's lock until they commit, append.ts), so an entry seen at the head has every entry before it
 *   committed: the count is of a prefix of the chain, never of one with a hole still to be filled.
 * - Timestamps never go back, even across servers whose clocks differ.
 */
import type { Sql } from 'postgres';
import { ADVISORY_LOCKS } from '../../store/advisory-lock.js';
import type { LogKey } from '../store/log-key.js';
import { signCheckpoint, type SignedAuditCheckpoint } from './checkpoint.js';

export interface AnchorPass {
  /** `busy`: another process holds the lock; `idle`: the chain did not grow since the newest checkpoint. */
  status: 'busy' | 'idle' | 'anchored';
  /** The checkpoint this pass signed. */
  checkpoint: SignedAuditCheckpoint | null;
}

interface CheckpointRow {
  size: number;
  seq: number;
  entry_id: string;
  entry_hash: string;
  timestamp_ms: number;
  signature: Buffer;
  key_id: string;
}

const asCheckpoint = (r: CheckpointRow): SignedAuditCheckpoint => ({
  size: r.size,
  entry_id: r.entry_id,
  entry_hash: r.entry_hash,
  timestamp: r.timestamp_ms,
  signature: r.signature.toString('base64'),
  key_id: r.key_id,
});

/** The newest checkpoint kept in the store, or null when none was signed yet. */
export async function newestCheckpoint(sql: Sql): Promise<SignedAuditCheckpoint | null> {
  const [row] = await sql<CheckpointRow[]>`
    select size, seq, entry_id, entry_hash, timestamp_ms, signature, key_id from audit_checkpoints order by size desc limit 1`;
  return row ? asCheckpoint(row) : null;
}

/** Signs and keeps a checkpoint of the chain's head when the chain grew since the newest one. */
export async function anchorOnce(sql: Sql, key: LogKey, nowMs: number): Promise<AnchorPass> {
  // An idle chain costs one cheap read per tick (two index lookups), not a transaction.
  const [probe] = await sql<Array<{ head: number | null; anchored: number | null }>>`
    select (select seq from audit_log order by seq desc limit 1) as head,
           (select seq from audit_checkpoints order by size desc limit 1) as anchored`;
  if (!probe || probe.head === null || probe.head === probe.anchored) return { status: 'idle', checkpoint: null };
  return sql.begin(async (tx) => {
    const [lock] = await tx<Array<{ locked: boolean }>>`select pg_try_advisory_xact_lock(${ADVISORY_LOCKS.auditAnchor}) as locked`;
    if (!lock?.locked) return { status: 'busy', checkpoint: null };
    const [prev] = await tx<Array<{ size: number; seq: number; timestamp_ms: number }>>`
      select size, seq, timestamp_ms from audit_checkpoints order by size desc limit 1`;
    const afterSeq = prev?.seq ?? 0;
    const [head] = await tx<Array<{ seq: number; id: string; entry_hash: string; added: number }>>`
      select h.seq, h.id, h.entry_hash,
             (select count(*) from audit_log where seq > ${afterSeq} and seq <= h.seq)::bigint as added
      from (select seq, id, entry_hash from audit_log order by seq desc limit 1) h`;
    if (!head || head.seq <= afterSeq) return { status: 'idle', checkpoint: null };
    const checkpoint = signCheckpoint(
      {
        size: (prev?.size ?? 0) + head.added,
        entry_id: head.id,
        entry_hash: head.entry_hash,
        timestamp: Math.max(nowMs, prev?.timestamp_ms ?? 0),
      },
      key.sign,
      key.keyId,
    );
    const inserted = await tx`
      insert into audit_checkpoints (size, seq, entry_id, entry_hash, timestamp_ms, signature, key_id)
      values (${checkpoint.size}, ${head.seq}, ${checkpoint.entry_id}, ${checkpoint.entry_hash}, ${checkpoint.timestamp},
              ${Buffer.from(checkpoint.signature, 'base64')}, ${checkpoint.key_id})
      on conflict do nothing`;
    return inserted.count === 1 ? { status: 'anchored', checkpoint } : { status: 'busy', checkpoint: null };
  });
}
