/**
 * Appending leaves to the tree, as the sequencer does, without reading old leaves: the "compact range" of a
 * tree of n leaves is the perfect subtrees covering [0, n) (./subtrees.ts), at most log2(n) + 1 of them. A new
 * leaf joins them as a perfect subtree of one leaf, then merges with its left neighbour while both have the
 * same height, each merge completing a perfect subtree the store keeps. The root is their right fold
 * (RFC 9162 §2.1.1).
 */
import { EMPTY_ROOT, nodeHash } from './hashing.js';
import { expectSize, perfectSubtrees, type NodeId } from './subtrees.js';

export interface StoredNode extends NodeId {
  hash: Uint8Array;
}

export interface Appended {
  size: number;
  /**
   * Every perfect subtree the new leaves completed, leaves (level 0) included, in the order completed (the
   * store keeps level 1 and up: a leaf's hash is computed from its row).
   */
  nodes: StoredNode[];
  /** The perfect subtrees covering [0, size), left to right. */
  frontier: StoredNode[];
  root: Uint8Array;
}

/** The nodes a tree of `size` leaves needs to grow and to name its root: its compact range. */
export const frontierOf = (size: number): NodeId[] => perfectSubtrees(0, size);

/** The root of a tree from its compact range (left to right): H(p1, H(p2, … pj)); the empty tree's for none. */
export function rootOf(frontier: readonly { hash: Uint8Array }[]): Uint8Array {
  if (frontier.length === 0) return EMPTY_ROOT;
  let hash = (frontier[frontier.length - 1] as { hash: Uint8Array }).hash;
  for (let i = frontier.length - 2; i >= 0; i--) hash = nodeHash((frontier[i] as { hash: Uint8Array }).hash, hash);
  return hash;
}

/** Appends `leafHashes` (already RFC 9162 leaf hashes) to the tree of `size` leaves whose compact range is `frontier`. */
export function appendLeaves(size: number, frontier: readonly StoredNode[], leafHashes: readonly Uint8Array[]): Appended {
  expectSize(size, 'size');
  const expected = frontierOf(size);
  if (expected.length !== frontier.length || expected.some((id, i) => id.level !== frontier[i]?.level || id.index !== frontier[i]?.index)) {
    throw new RangeError(`the frontier given is not the compact range of a tree of size ${size}`);
  }
  const stack: StoredNode[] = [...frontier];
  const nodes: StoredNode[] = [];
  let at = size;
  for (const hash of leafHashes) {
    let node: StoredNode = { level: 0, index: at, hash };
    nodes.push(node);
    while (stack.length > 0 && (stack[stack.length - 1] as StoredNode).level === node.level) {
      const left = stack.pop() as StoredNode;
      node = { level: node.level + 1, index: left.index / 2, hash: nodeHash(left.hash, node.hash) };
      nodes.push(node);
    }
    stack.push(node);
    at += 1;
  }
  return { size: at, nodes, frontier: stack, root: rootOf(stack) };
}
