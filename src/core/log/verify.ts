/**
 * Verifying the log's proofs as a client does, with nothing but the hashes: RFC 9162 §2.1.3.2 (inclusion)
 * and §2.1.4.2 (consistency), step for step. Checked against the published vectors of
 * transparency-dev/merkle, including every tampered variant, which must be refused.
 *
 * Beyond the RFC's steps, and as transparency-dev/merkle does: a leaf hash and each proof element must be
 * 32 bytes; equal sizes are consistent only with an empty proof and equal roots; a consistency proof from
 * the empty tree proves nothing and is refused.
 * A verdict says why a proof fails, so a command can name the failing check.
 */
import { equalBytes, HASH_LENGTH, nodeHash } from './hashing.js';

export type Verdict = { valid: true } | { valid: false; reason: string };

const VALID: Verdict = { valid: true };
const fail = (reason: string): Verdict => ({ valid: false, reason });

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
const odd = (n: number): boolean => n % 2 === 1;
const half = (n: number): number => Math.floor(n / 2);

function isPowerOfTwo(n: number): boolean {
  let m = n;
  while (m > 1 && !odd(m)) m = half(m);
  return m === 1;
}

function badElement(proof: readonly Uint8Array[]): number {
  return proof.findIndex((p) => !(p instanceof Uint8Array) || p.length !== HASH_LENGTH);
}

/** RFC 9162 §2.1.3.2: is `leafHash` the leaf `index` of the tree of `size` leaves whose root is `root`? */
export function verifyInclusion(index: number, size: number, leafHash: Uint8Array, proof: readonly Uint8Array[], root: Uint8Array): Verdict {
  if (!isCount(index) || !isCount(size)) return fail('leaf index and tree size must be non-negative integers');
  // 1. leaf_index ≥ tree_size: fail.
  if (index >= size) return fail(`leaf index ${index} is not below the tree size ${size}`);
  if (!(leafHash instanceof Uint8Array) || leafHash.length !== HASH_LENGTH) return fail(`the leaf hash is not ${HASH_LENGTH} bytes`);
  const bad = badElement(proof);
  if (bad >= 0) return fail(`element ${bad} of the audit path is not ${HASH_LENGTH} bytes`);
  // 2.–3.
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  // 4.
  for (const p of proof) {
    if (sn === 0) return fail('the audit path is longer than the tree is high');
    if (odd(fn) || fn === sn) {
      r = nodeHash(p, r);
      if (!odd(fn)) {
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  // 5.
  if (sn !== 0) return fail('the audit path is shorter than the tree is high');
  if (!equalBytes(r, root)) return fail('the audit path does not lead to the root hash');
  return VALID;
}

/** RFC 9162 §2.1.4.2: is the tree of `second` leaves (root `secondHash`) an extension of the one of `first` leaves? */
export function verifyConsistency(first: number, second: number, proof: readonly Uint8Array[], firstHash: Uint8Array, secondHash: Uint8Array): Verdict {
  if (!isCount(first) || !isCount(second)) return fail('tree sizes must be non-negative integers');
  if (second < first) return fail(`the second tree (${second}) is smaller than the first (${first})`);
  if (first === 0) return fail('a consistency proof from the empty tree proves nothing');
  if (first === second) {
    if (proof.length > 0) return fail('equal tree sizes need an empty proof');
    return equalBytes(firstHash, secondHash) ? VALID : fail('equal tree sizes with different root hashes');
  }
  // 1. An empty consistency_path fails.
  if (proof.length === 0) return fail('the proof is empty');
  const bad = badElement(proof);
  if (bad >= 0) return fail(`element ${bad} of the proof is not ${HASH_LENGTH} bytes`);
  // 2. If first is an exact power of 2, prepend first_hash.
  const path = isPowerOfTwo(first) ? [firstHash, ...proof] : [...proof];
  // 3.
  let fn = first - 1;
  let sn = second - 1;
  // 4.
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  // 5.
  let fr = path[0] as Uint8Array;
  let sr = path[0] as Uint8Array;
  if (fr.length !== HASH_LENGTH) return fail(`the first root hash is not ${HASH_LENGTH} bytes`);
  // 6.
  for (const c of path.slice(1)) {
    if (sn === 0) return fail('the proof is longer than the trees need');
    if (odd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (!odd(fn)) {
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  // 7.
  if (sn !== 0) return fail('the proof is shorter than the trees need');
  if (!equalBytes(fr, firstHash)) return fail('the proof does not lead to the first root hash');
  if (!equalBytes(sr, secondHash)) return fail('the proof does not lead to the second root hash');
  return VALID;
}
