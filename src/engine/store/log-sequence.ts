/**
 * One pass of the transparency log's sequencer: committed queue rows become leaves, in one transaction.
 *
 * - One sequencer at a time: the pass takes the `transparencyLog` transaction-scoped advisory lock without
 *   waiting (another instance holding it is sequencing right now; this one skips its turn), then locks the
 *   `log_state` row, which serializes passes even where advisory locks do not exclude (the embedded store).
 * - Commit order: the queue rows a pass takes are those committed before it began (written by the statements
 *   that seal, bind or record a trace, in its own transaction), oldest queue id first; a trace committed later
 *   gets a later pass, so a leaf never precedes one committed before the previous pass.
 * - Nothing lost, nothing twice: the queue rows are deleted in the transaction that appends their leaves, so a
 *   pass that fails leaves them queued; a (trace, kind) already logged is dropped, never appended again.
 * - The pass reads only the tree's compact range (O(log n) nodes), appends, stores every perfect subtree of two
 *   leaves or more that the new leaves complete (a leaf's own hash is computed from its row), and signs the new
 *   head (./../log/).
 */
import type { Sql } from 'postgres';
import { ADVISORY_LOCKS } from '../../store/advisory-lock.js';
import { appendLeaves, frontierOf, type StoredNode } from '../../core/log/append.js';
import { leafHash, toHex } from '../../core/log/hashing.js';
import { signTreeHead, type SignedTreeHead } from '../../core/log/tree-head.js';
import type { LogKey } from './log-key.js';
import { readNodes } from '../../store/log-read.js';
import type { LeafKind } from '../../store/log-read.js';

/** At most this many leaves per pass (and per transaction); a longer queue takes several passes in a row. */
export const SEQUENCE_BATCH = 4096;

export type { LeafKind };

interface QueueRow {
  id: number;
  trace_id: string;
  agent_id: string;
  kind: LeafKind;
  data: Buffer;
}

export interface SequencePass {
  /** `busy`: another sequencer holds the lock; `idle`: nothing was queued. */
  status: 'busy' | 'idle' | 'appended';
  appended: number;
  /** Queue rows dropped because their leaf was already in the log. */
  dropped: number;
  /** The head signed by this pass. */
  head: SignedTreeHead | null;
}

export async function sequenceOnce(sql: Sql, key: LogKey, nowMs: number, limit = SEQUENCE_BATCH): Promise<SequencePass> {
  // An idle log costs one cheap read per tick, not a transaction.
  const [waiting] = await sql<Array<{ any: boolean }>>`select exists (select 1 from log_queue) as any`;
  if (!waiting?.any) return { status: 'idle', appended: 0, dropped: 0, head: null };
  return sql.begin(async (tx) => {
    const [lock] = await tx<Array<{ locked: boolean }>>`select pg_try_advisory_xact_lock(${ADVISORY_LOCKS.transparencyLog}) as locked`;
    if (!lock?.locked) return { status: 'busy', appended: 0, dropped: 0, head: null };
    const [state] = await tx<Array<{ tree_size: number; last_timestamp_ms: number }>>`select tree_size, last_timestamp_ms from log_state for update`;
    if (!state) throw new Error('log_state has no row: migration 0013 did not run');
    const queued = await tx<QueueRow[]>`
      delete from log_queue where id in (select id from log_queue order by id limit ${limit})
      returning id, trace_id, agent_id, kind, data`;
    if (queued.length === 0) return { status: 'idle', appended: 0, dropped: 0, head: null };
    queued.sort((a, b) => a.id - b.id);

    const traceIds = [...new Set(queued.map((row) => row.trace_id))];
    // One probe of the (trace_id, kind) index per id: a lateral subquery with a limit (a trace has at most two
    // leaves) is not flattened into a join, so the planner cannot scan the whole table, which grows with every
    // leaf (it did: a hash join over a seq scan, 3 ms a pass at 30,000 leaves). A pass costs the same whatever the
    // log's size.
    const logged = await tx<Array<{ trace_id: string; kind: LeafKind }>>`
      select l.trace_id, l.kind from unnest(${traceIds}::uuid[]) as u(id)
      cross join lateral (select trace_id, kind from log_leaves where trace_id = u.id limit 2) l`;
    const seen = new Set(logged.map((row) => `${row.trace_id}/${row.kind}`));
    const fresh = queued.filter((row) => {
      const id = `${row.trace_id}/${row.kind}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    const dropped = queued.length - fresh.length;
    if (fresh.length === 0) return { status: 'idle', appended: 0, dropped, head: null };

    const ids = frontierOf(state.tree_size);
    const lookup = await readNodes(tx, ids);
    const frontier: StoredNode[] = ids.map((id) => ({ ...id, hash: lookup(id) }));
    const grown = appendLeaves(
      state.tree_size,
      frontier,
      fresh.map((row) => leafHash(new Uint8Array(row.data))),
    );
    // Heads never go back in time, even when this instance's clock is behind the previous sequencer's.
    const timestamp = Math.max(nowMs, state.last_timestamp_ms);

    // The completed subtrees of level 1 and up; a leaf's hash is read from its row in log_leaves (../../store/log-read.ts).
    const inner = grown.nodes.filter((n) => n.level > 0);
    if (inner.length > 0) {
      await tx`
        insert into log_nodes (level, idx, hash)
        select level, idx, decode(hash, 'hex')
        from unnest(${inner.map((n) => String(n.level))}::smallint[], ${inner.map((n) => String(n.index))}::bigint[], ${inner.map((n) => toHex(n.hash))}::text[]) as n(level, idx, hash)`;
    }
    await tx`
      insert into log_leaves (leaf_index, trace_id, agent_id, kind, data, sequenced_at)
      select leaf_index, trace_id, agent_id, kind, decode(data, 'hex'), ${timestamp}
      from unnest(${fresh.map((_, i) => String(state.tree_size + i))}::bigint[], ${fresh.map((r) => r.trace_id)}::uuid[],
                  ${fresh.map((r) => r.agent_id)}::uuid[], ${fresh.map((r) => r.kind)}::text[], ${fresh.map((r) => r.data.toString('hex'))}::text[])
        as l(leaf_index, trace_id, agent_id, kind, data)`;
    const head = signTreeHead({ tree_size: grown.size, root_hash: toHex(grown.root), timestamp }, key.sign, key.keyId);
    await tx`
      insert into log_heads (tree_size, root_hash, timestamp_ms, signature, key_id)
      values (${head.tree_size}, ${Buffer.from(grown.root)}, ${timestamp}, ${Buffer.from(head.signature, 'base64')}, ${head.key_id})`;
    await tx`update log_state set tree_size = ${grown.size}, last_timestamp_ms = ${timestamp}`;
    return { status: 'appended', appended: fresh.length, dropped, head };
  });
}
