/**
 * Reading the transparency log: stored perfect subtrees (one query for all the nodes a head or a proof needs),
 * the log's size, its signed heads, and a trace's leaves. Every read is by primary key or unique index, so
 * none depends on how many leaves the log holds.
 */
import type { Sql, TransactionSql } from 'postgres';
import { TradesealError } from '../core/errors.js';
import { leafHash, toHex } from '../core/log/hashing.js';
import { nodeKey, type NodeId, type NodeLookup } from '../core/log/subtrees.js';
import type { SignedTreeHead } from '../core/log/tree-head.js';
import { traceTimeOf } from '../core/trace-id.js';

/**
 * The hashes of `ids`, read in one query, as a lookup that refuses a node the store lacks. A perfect subtree
 * of level 1 or more is a row of log_nodes; a leaf (level 0) is not stored twice: its hash is computed from
 * its row in log_leaves (RFC 9162: SHA-256(0x00 || data)). Level-0 rows that log_nodes may hold from before
 * are not read.
 */
/** What a leaf of the transparency log commits to: a trace's reasoning hash, or its final proof. */
export type LeafKind = 'reasoning_hash' | 'final_proof';

export async function readNodes(sql: Sql | TransactionSql, ids: readonly NodeId[]): Promise<NodeLookup> {
  const inner = ids.filter((id) => id.level > 0);
  const leaves = ids.filter((id) => id.level === 0);
  const rows =
    ids.length === 0
      ? []
      : await sql<Array<{ level: number; idx: number; hash: Buffer }>>`
    select n.level, n.idx, n.hash from log_nodes n
    join unnest(${inner.map((id) => String(id.level))}::smallint[], ${inner.map((id) => String(id.index))}::bigint[]) as w(level, idx)
      on n.level = w.level and n.idx = w.idx
    union all
    select 0, l.leaf_index, l.data from log_leaves l
    join unnest(${leaves.map((id) => String(id.index))}::bigint[]) as w(idx) on l.leaf_index = w.idx`;
  const found = new Map(
    rows.map((row) => [nodeKey({ level: row.level, index: row.idx }), row.level === 0 ? leafHash(new Uint8Array(row.hash)) : new Uint8Array(row.hash)]),
  );
  return (id) => {
    const hash = found.get(nodeKey(id));
    if (!hash) throw new TradesealError('store_error', `the transparency log lacks its node ${nodeKey(id)} (level:index)`);
    return hash;
  };
}

export interface LogState {
  tree_size: number;
  created_at_ms: number;
}

export async function logState(sql: Sql): Promise<LogState> {
  const [row] = await sql<LogState[]>`select tree_size, created_at_ms from log_state`;
  if (!row) throw new TradesealError('store_error', 'the transparency log has no state row (migration 0013)');
  return row;
}

/** A signed head as a log's heads table stores it (the engine's and the signal service's track log alike). */
export interface HeadRow {
  tree_size: number;
  root_hash: Buffer;
  timestamp_ms: number;
  signature: Buffer;
  key_id: string;
}

export const asHead = (row: HeadRow): SignedTreeHead => ({
  tree_size: row.tree_size,
  root_hash: toHex(row.root_hash),
  timestamp: row.timestamp_ms,
  signature: row.signature.toString('base64'),
  key_id: row.key_id,
});

/** The newest signed head, or null while the log is empty. */
export async function latestHead(sql: Sql): Promise<SignedTreeHead | null> {
  const [row] = await sql<HeadRow[]>`select tree_size, root_hash, timestamp_ms, signature, key_id from log_heads order by tree_size desc limit 1`;
  return row ? asHead(row) : null;
}

/** The head the sequencer signed at exactly `treeSize`, if it signed one there. */
export async function storedHead(sql: Sql, treeSize: number): Promise<SignedTreeHead | null> {
  const [row] = await sql<HeadRow[]>`select tree_size, root_hash, timestamp_ms, signature, key_id from log_heads where tree_size = ${treeSize}`;
  return row ? asHead(row) : null;
}

/** When the leaf `index` was sequenced (the timestamp of the first head that included it), Unix ms. */
export async function leafSequencedAt(sql: Sql, index: number): Promise<number> {
  const [row] = await sql<Array<{ sequenced_at: number }>>`select sequenced_at from log_leaves where leaf_index = ${index}`;
  if (!row) throw new TradesealError('store_error', `the transparency log lacks its leaf ${index}`);
  return row.sequenced_at;
}

export interface TraceLeaf {
  leaf_index: number;
  kind: LeafKind;
  /** The leaf data, lowercase hex (the hash it logs). */
  data: string;
}

export async function traceLeaves(sql: Sql, traceId: string): Promise<TraceLeaf[]> {
  const rows = await sql<Array<{ leaf_index: number; kind: LeafKind; data: Buffer }>>`
    select leaf_index, kind, data from log_leaves where trace_id = ${traceId} order by leaf_index`;
  return rows.map((row) => ({ leaf_index: row.leaf_index, kind: row.kind, data: toHex(row.data) }));
}

export interface TraceLogFacts {
  agent_id: string;
  reasoning_hash: string;
  final_proof: string | null;
}

/** What the trace itself holds now (null: no such trace); one partition when the id names its time. */
export async function traceLogFacts(sql: Sql, traceId: string): Promise<TraceLogFacts | null> {
  const at = traceTimeOf(traceId);
  const [row] = at
    ? await sql<TraceLogFacts[]>`select agent_id, reasoning_hash, final_proof from traces where trace_id = ${traceId} and txn_time = ${at}`
    : await sql<TraceLogFacts[]>`select agent_id, reasoning_hash, final_proof from traces where trace_id = ${traceId} limit 1`;
  return row ?? null;
}
