/**
 * The transparency log's read operations, shared by the HTTP routes (`/engine/log/...`) and the CLI
 * (`tradeseal engine log ...`), so both answer the same and refuse the same:
 *
 * - a signed tree head, the newest or that of any size the log has reached;
 * - a trace's inclusion proofs (its reasoning_hash leaf, and its final_proof leaf once logged);
 * - a consistency proof between two sizes.
 *
 * A size beyond the log is `validation_failed` on the parameter (422, exit 2); an unknown trace `not_found`; a
 * committed trace the sequencer has not reached yet `not_yet_logged` (404, exit 3).
 */
import type { Sql } from 'postgres';
import { forbidden, notFound, TradesealError, validationError } from '../../core/errors.js';
import { hashFromHex, leafHash, toHex } from '../../core/log/hashing.js';
import { consistencyPath, inclusionPath, proofHashes } from '../../core/log/proofs.js';
import { nodesOf, subtreeHash } from '../../core/log/subtrees.js';
import type { LeafProof, TraceLogProof } from '../../core/log/trace-check.js';
import { signTreeHead, type SignedTreeHead } from '../../core/log/tree-head.js';
import type { LogKey } from '../store/log-key.js';
import { latestHead, leafSequencedAt, logState, readNodes, storedHead, traceLeaves, traceLogFacts } from '../../store/log-read.js';

export interface ConsistencyProof {
  from: number;
  to: number;
  proof: string[];
}

function beyondLog(field: string, value: number, size: number): TradesealError {
  return validationError([{ field, message: `must be at most ${size}, the number of leaves in the log (got ${value})` }]);
}

/** The size proofs answer for when no size is asked: the newest signed head's. */
async function currentSize(sql: Sql): Promise<number> {
  return (await latestHead(sql))?.tree_size ?? 0;
}

/**
 * The signed head of the tree of `treeSize` leaves (default: the newest). The sequencer's own head when it
 * signed one at that size; otherwise the root recomputed from stored subtrees and signed now with the log key,
 * stamped with the time its last leaf was sequenced (so the same size always gets the same head).
 */
export async function treeHead(sql: Sql, key: () => Promise<LogKey>, treeSize?: number): Promise<SignedTreeHead> {
  if (treeSize === undefined) {
    const newest = await latestHead(sql);
    if (newest) return newest;
  }
  const size = treeSize ?? 0;
  const state = await logState(sql);
  if (size > state.tree_size) throw beyondLog('tree_size', size, state.tree_size);
  const stored = await storedHead(sql, size);
  if (stored) return stored;
  const root = subtreeHash({ start: 0, end: size }, await readNodes(sql, nodesOf([{ start: 0, end: size }])));
  const timestamp = size === 0 ? state.created_at_ms : await leafSequencedAt(sql, size - 1);
  const k = await key();
  return signTreeHead({ tree_size: size, root_hash: toHex(root), timestamp }, k.sign, k.keyId);
}

/**
 * The inclusion proofs of a trace's leaves in the tree of `treeSize` leaves (default: the newest head's).
 * `mayRead` says whether the caller may read the agent's traces (a client token bound to other agents may not).
 */
export async function traceProof(
  sql: Sql,
  traceId: string,
  options: { treeSize?: number; mayRead?: (agentId: string) => boolean } = {},
): Promise<TraceLogProof> {
  const trace = await traceLogFacts(sql, traceId);
  if (!trace) throw notFound(`no trace ${traceId}`, 'the traces are listed by `tradeseal engine traces list`');
  if (options.mayRead && !options.mayRead(trace.agent_id)) throw forbidden('agent_not_permitted', `this token may not read traces of agent ${trace.agent_id}`);
  const leaves = await traceLeaves(sql, traceId);
  const reasoning = leaves.find((leaf) => leaf.kind === 'reasoning_hash');
  if (!reasoning) {
    throw new TradesealError('not_yet_logged', `trace ${traceId} is committed but its reasoning_hash is not yet in the transparency log`, {
      hint: 'the sequencer of a running server adds it within a second; ask again',
    });
  }
  let size: number;
  if (options.treeSize === undefined) size = await currentSize(sql);
  else {
    const state = await logState(sql);
    if (options.treeSize > state.tree_size) throw beyondLog('tree_size', options.treeSize, state.tree_size);
    size = options.treeSize;
  }
  if (reasoning.leaf_index >= size) {
    throw validationError([
      {
        field: 'tree_size',
        message: `the trace's reasoning_hash is leaf ${reasoning.leaf_index}, so it is in trees of more than ${reasoning.leaf_index} leaves (got ${size})`,
      },
    ]);
  }
  const final = leaves.find((leaf) => leaf.kind === 'final_proof' && leaf.leaf_index < size) ?? null;
  const reasoningPath = inclusionPath(reasoning.leaf_index, size);
  const finalPath = final ? inclusionPath(final.leaf_index, size) : [];
  const lookup = await readNodes(sql, nodesOf([...reasoningPath, ...finalPath]));
  const proofOf = (leaf: { leaf_index: number; data: string }, path: typeof reasoningPath): LeafProof => ({
    leaf_index: leaf.leaf_index,
    leaf_hash: toHex(leafHash(hashFromHex(leaf.data, 'leaf data'))),
    audit_path: proofHashes(path, lookup).map(toHex),
  });
  return {
    trace_id: traceId,
    tree_size: size,
    ...proofOf(reasoning, reasoningPath),
    reasoning_hash: reasoning.data,
    final_proof: final?.data ?? null,
    final_proof_leaf: final ? proofOf(final, finalPath) : null,
  };
}

/** The RFC 9162 consistency proof from the tree of `from` leaves to the tree of `to` leaves (default: the newest head's). */
export async function consistencyProof(sql: Sql, from: number, to?: number): Promise<ConsistencyProof> {
  const state = await logState(sql);
  const end = to ?? (await currentSize(sql));
  const errors = [];
  if (to !== undefined && to > state.tree_size)
    errors.push({ field: 'to', message: `must be at most ${state.tree_size}, the number of leaves in the log (got ${to})` });
  if (from > end) errors.push({ field: 'from', message: `must not be greater than to (${end})` });
  if (errors.length > 0) throw validationError(errors);
  const ranges = consistencyPath(from, end);
  return { from, to: end, proof: proofHashes(ranges, await readNodes(sql, nodesOf(ranges))).map(toHex) };
}
