/**
 * Which subtrees make up an inclusion proof and a consistency proof: RFC 9162 §2.1.3.1 (PATH) and §2.1.4.1
 * (PROOF and SUBPROOF), followed step by step, but yielding the leaf range of each MTH the RFC names instead of
 * computing it. `proofHashes` then turns the ranges into hashes from stored perfect subtrees (./subtrees.ts),
 * so a proof costs O(log n) node reads whatever the size of the log.
 *
 * Order is the RFC's: the audit path runs from the leaf's sibling up to the root's child.
 */
import { expectSize, splitPoint, subtreeHash, type LeafRange, type NodeLookup } from './subtrees.js';

/**
 * PATH(m, D[n]) for the leaf `index` in a tree of `size` leaves, as leaf ranges (RFC 9162 §2.1.3.1):
 * PATH(0, {d0}) = {}; for m < k, PATH(m, D[0:k]) : MTH(D[k:n]); for m ≥ k, PATH(m − k, D[k:n]) : MTH(D[0:k]).
 */
export function inclusionPath(index: number, size: number): LeafRange[] {
  expectSize(index, 'index');
  expectSize(size, 'size');
  if (index >= size) throw new RangeError(`leaf ${index} is not in a tree of size ${size}`);
  const out: LeafRange[] = [];
  const path = (m: number, start: number, n: number): void => {
    if (n === 1) return;
    const k = splitPoint(n);
    if (m < k) {
      path(m, start, k);
      out.push({ start: start + k, end: start + n });
    } else {
      path(m - k, start + k, n - k);
      out.push({ start, end: start + k });
    }
  };
  path(index, 0, size);
  return out;
}

/**
 * PROOF(m, D[n]) = SUBPROOF(m, D[n], true) between the trees of `from` and `to` leaves, as leaf ranges
 * (RFC 9162 §2.1.4.1). Defined for 0 < from ≤ to; it is empty when from = to.
 */
export function consistencyPath(from: number, to: number): LeafRange[] {
  expectSize(from, 'from');
  expectSize(to, 'to');
  if (from < 1 || from > to) throw new RangeError(`a consistency proof needs 0 < from ≤ to, got from ${from} and to ${to}`);
  const out: LeafRange[] = [];
  const subproof = (m: number, start: number, n: number, whole: boolean): void => {
    if (m === n) {
      // SUBPROOF(m, D[m], true) = {}; SUBPROOF(m, D[m], false) = {MTH(D[m])}.
      if (!whole) out.push({ start, end: start + n });
      return;
    }
    const k = splitPoint(n);
    if (m <= k) {
      subproof(m, start, k, whole);
      out.push({ start: start + k, end: start + n });
    } else {
      subproof(m - k, start + k, n - k, false);
      out.push({ start, end: start + k });
    }
  };
  subproof(from, 0, to, true);
  return out;
}

/** The hash of each range, from stored perfect subtrees. */
export const proofHashes = (ranges: readonly LeafRange[], lookup: NodeLookup): Uint8Array[] => ranges.map((range) => subtreeHash(range, lookup));
