/**
 * Perfect subtrees: the nodes the log stores, and how every hash the log answers with is made of them.
 *
 * A perfect subtree is `{level, index}`: the 2^level leaves [index·2^level, (index+1)·2^level). Once the tree
 * holds all of its leaves its hash never changes, so the store keeps each one as soon as it is complete
 * (about 2n nodes for n leaves) and never rewrites it.
 *
 * Every subtree that RFC 9162 §2.1 builds, MTH(D[a:b]) with `a` a multiple of the smallest power of two
 * ≥ b − a, splits at the largest power of two below its size, so its left part is perfect and its right
 * part is such a subtree again. Its hash is therefore the right fold, H(p1, H(p2, … pj)), of the perfect
 * subtrees that cover [a, b) left to right, largest first: at most ⌈log2(b − a)⌉ + 1 of them. That makes a
 * root, and every element of an inclusion or consistency proof, a read of O(log n) stored nodes.
 *
 * Sizes and indexes are JavaScript numbers below 2^53, so the arithmetic is division and multiplication,
 * never 32-bit bit operators.
 */
import { EMPTY_ROOT, nodeHash } from './hashing.js';

export interface NodeId {
  level: number;
  index: number;
}

/** [start, end): a range of leaf indexes. */
export interface LeafRange {
  start: number;
  end: number;
}

/** The largest tree size the log accepts: every index and size stays an exact JavaScript number. */
export const MAX_TREE_SIZE = Number.MAX_SAFE_INTEGER;

export const nodeKey = (id: NodeId): string => `${id.level}:${id.index}`;

/** The first leaf a perfect subtree covers. */
export const firstLeaf = (id: NodeId): number => id.index * 2 ** id.level;

export function expectSize(value: number, name: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`${name} must be a non-negative safe integer, got ${value}`);
}

/** k, the largest power of two smaller than n (RFC 9162 §2.1.1: k < n ≤ 2k), for n ≥ 2. */
export function splitPoint(n: number): number {
  if (!Number.isSafeInteger(n) || n < 2) throw new TypeError(`n must be an integer of at least 2, got ${n}`);
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** The perfect subtrees covering [start, end), left to right: at each position the largest one that fits. */
export function perfectSubtrees(start: number, end: number): NodeId[] {
  expectSize(start, 'start');
  expectSize(end, 'end');
  if (end < start) throw new RangeError(`end ${end} is before start ${start}`);
  const out: NodeId[] = [];
  let at = start;
  while (at < end) {
    let level = 0;
    // Grow while the next level is still aligned at `at` and still fits before `end`.
    while (at % 2 ** (level + 1) === 0 && at + 2 ** (level + 1) <= end) level += 1;
    out.push({ level, index: at / 2 ** level });
    at += 2 ** level;
  }
  return out;
}

/** Looks a stored perfect subtree's hash up; throws when the store lacks one it should have. */
export type NodeLookup = (id: NodeId) => Uint8Array;

/** MTH(D[start:end]) from stored perfect subtrees (see the module comment); the empty range is the empty root. */
export function subtreeHash(range: LeafRange, lookup: NodeLookup): Uint8Array {
  const parts = perfectSubtrees(range.start, range.end).map(lookup);
  if (parts.length === 0) return EMPTY_ROOT;
  let hash = parts[parts.length - 1] as Uint8Array;
  for (let i = parts.length - 2; i >= 0; i--) hash = nodeHash(parts[i] as Uint8Array, hash);
  return hash;
}

/** Every stored node the hashes of `ranges` need, each once. */
export function nodesOf(ranges: readonly LeafRange[]): NodeId[] {
  const seen = new Map<string, NodeId>();
  for (const range of ranges) for (const id of perfectSubtrees(range.start, range.end)) seen.set(nodeKey(id), id);
  return [...seen.values()];
}
