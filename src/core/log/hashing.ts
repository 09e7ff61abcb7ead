/**
 * The hashes of the transparency log's Merkle tree, RFC 9162 §2.1.1 (unchanged from RFC 6962 §2.1), with
 * SHA-256 (FIPS 180-4) through node:crypto:
 *
 * - the hash of a leaf is SHA-256(0x00 ‖ data) and the hash of an interior node SHA-256(0x01 ‖ left ‖ right):
 *   the distinct prefixes keep a leaf from ever passing for a node (second-preimage resistance);
 * - the hash of the empty tree is SHA-256 of no bytes.
 *
 * Hashes are 32-byte arrays here; the wire and the store carry them as lowercase hex.
 */
import { createHash } from 'node:crypto';

export const HASH_LENGTH = 32;

const LEAF_PREFIX = Uint8Array.of(0x00);
const NODE_PREFIX = Uint8Array.of(0x01);

function expectBytes(value: Uint8Array, name: string): void {
  if (!(value instanceof Uint8Array)) throw new TypeError(`${name} must be a Uint8Array, got ${typeof value}`);
}

/** MTH({}) = SHA-256() (RFC 9162 §2.1.1). */
export const EMPTY_ROOT: Uint8Array = new Uint8Array(createHash('sha256').digest());

/** MTH({d}) = SHA-256(0x00 ‖ d), for a leaf of any length. */
export function leafHash(data: Uint8Array): Uint8Array {
  expectBytes(data, 'data');
  return new Uint8Array(createHash('sha256').update(LEAF_PREFIX).update(data).digest());
}

/**
 * SHA-256(0x01 ‖ left ‖ right): the hash of an interior node from its two children's hashes. The RFC defines it
 * for any bytes (its published vectors hash 4-byte children); the verifiers check for 32 bytes before.
 */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  expectBytes(left, 'left');
  expectBytes(right, 'right');
  return new Uint8Array(createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest());
}

export const toHex = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

/** 64 lowercase hex characters to 32 bytes; anything else is a TypeError naming `name`. */
export function hashFromHex(hex: string, name: string): Uint8Array {
  if (typeof hex !== 'string' || !/^[0-9a-f]{64}$/.test(hex)) throw new TypeError(`${name} must be 64 lowercase hex characters`);
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

export const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((byte, i) => byte === b[i]);
