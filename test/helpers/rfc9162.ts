/**
 * RFC 9162's Merkle tree written from the RFC's text alone, for the tests of the signal service's track log: it
 * shares no code with the project (src/core/log/), so a proof the project serves is checked by a second,
 * independent reading of the standard.
 *
 * - §2.1.1: MTH({}) = SHA-256(); MTH({d0}) = SHA-256(0x00 ‖ d0); MTH(D[n]) = SHA-256(0x01 ‖ MTH(D[0:k]) ‖ MTH(D[k:n]))
 *   with k the largest power of two smaller than n.
 * - §2.1.3.2: verifying an inclusion proof; §2.1.4.2: verifying a consistency proof, step for step.
 */
import { createHash } from 'node:crypto';

const sha256 = (...parts: Uint8Array[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

export const rfcLeafHash = (data: Uint8Array): Buffer => sha256(Uint8Array.of(0), data);
const rfcNode = (left: Uint8Array, right: Uint8Array): Buffer => sha256(Uint8Array.of(1), left, right);

function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** §2.1.1: the Merkle tree hash of the leaves' data. */
export function rfcRoot(leaves: readonly Uint8Array[]): Buffer {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return rfcLeafHash(leaves[0]!);
  const k = largestPowerOfTwoBelow(leaves.length);
  return rfcNode(rfcRoot(leaves.slice(0, k)), rfcRoot(leaves.slice(k)));
}

/** Every hash of the tree is HASH_SIZE bytes (§2.1.1: SHA-256's 32). */
const hashes = (...values: readonly Uint8Array[]): boolean => values.every((v) => v.length === 32);

/** §2.1.3.2, steps 1–6: whether `inclusionPath` proves the leaf `leafIndex` of a tree of `treeSize` with root `root`. */
export function rfcVerifyInclusion(leafIndex: number, treeSize: number, leafHash: Uint8Array, inclusionPath: readonly Uint8Array[], root: Uint8Array): boolean {
  if (leafIndex >= treeSize || !hashes(leafHash, root, ...inclusionPath)) return false;
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r: Buffer = Buffer.from(leafHash);
  for (const p of inclusionPath) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = rfcNode(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else {
      r = rfcNode(r, p);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 && r.equals(Buffer.from(root));
}

/** §2.1.4.2, steps 1–7: whether `consistencyPath` proves the tree of `firstSize` (root `firstHash`) a prefix of that of `secondSize`. */
export function rfcVerifyConsistency(
  firstSize: number,
  secondSize: number,
  firstHash: Uint8Array,
  secondHash: Uint8Array,
  consistencyPath: readonly Uint8Array[],
): boolean {
  // The RFC's steps start from a non-empty tree: a proof from the empty tree proves nothing (transparency-dev/merkle refuses it too).
  if (firstSize === 0 || firstSize > secondSize) return false;
  if (firstSize === secondSize) return consistencyPath.length === 0 && Buffer.from(firstHash).equals(Buffer.from(secondHash));
  if (!hashes(firstHash, secondHash, ...consistencyPath)) return false;
  let path = [...consistencyPath];
  // 1. If first is an exact power of 2, prepend first_hash to the path.
  if ((firstSize & (firstSize - 1)) === 0) path = [firstHash, ...path];
  if (path.length === 0) return false;
  // 2.–3.
  let fn = firstSize - 1;
  let sn = secondSize - 1;
  // 4. If LSB(fn) is set, right-shift both fn and sn equally until LSB(fn) is not set.
  while (fn % 2 === 1) {
    fn >>= 1;
    sn >>= 1;
  }
  // 5. Set both fr and sr to the first value in the path.
  let fr: Buffer = Buffer.from(path[0]!);
  let sr: Buffer = Buffer.from(path[0]!);
  // 6. For each subsequent value c in the path:
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = rfcNode(c, fr);
      sr = rfcNode(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else {
      sr = rfcNode(sr, c);
    }
    fn >>= 1;
    sn >>= 1;
  }
  // 7.
  return fr.equals(Buffer.from(firstHash)) && sr.equals(Buffer.from(secondHash)) && sn === 0;
}
