/**
 * Signed tree heads: what exactly the log signs, and how anyone checks it offline.
 *
 * The signed bytes are RFC 6962 §3.5's TreeHeadSignature, 50 bytes:
 *   version v1 (0x00, 1 byte) ‖ signature_type tree_hash (0x01, 1 byte) ‖ timestamp (uint64 big-endian,
 *   Unix ms) ‖ tree_size (uint64 big-endian) ‖ sha256_root_hash (32 bytes),
 * the layout Certificate Transparency logs sign (checked against certificate-transparency-go's known-answer
 * test), here signed with pure Ed25519 (RFC 8032 §5.1) instead of ECDSA.
 * `key_id` is RFC 6962 §3.2's LogID: the hex SHA-256 of the DER SubjectPublicKeyInfo of the public key
 * (RFC 8410 §4), so a head names the key that signed it.
 */
import { createHash } from 'node:crypto';
import { fromBase64, publicKeyToPem, toBase64, verify } from '../crypto/ed25519.js';
import { hashFromHex } from './hashing.js';
import { expectSize } from './subtrees.js';
import type { Verdict } from './verify.js';

export interface TreeHead {
  tree_size: number;
  /** MTH of the first tree_size leaves, lowercase hex. */
  root_hash: string;
  /** When the log signed this tree, Unix ms. */
  timestamp: number;
}

export interface SignedTreeHead extends TreeHead {
  /** Standard base64 of the 64-byte Ed25519 signature over `treeHeadSignatureInput`. */
  signature: string;
  key_id: string;
}

const TREE_HEAD_INPUT_LENGTH = 50;

/** The 50 bytes the log signs for a tree head (RFC 6962 §3.5, see the module comment). */
export function treeHeadSignatureInput(head: TreeHead): Uint8Array {
  expectSize(head.tree_size, 'tree_size');
  expectSize(head.timestamp, 'timestamp');
  const out = Buffer.alloc(TREE_HEAD_INPUT_LENGTH);
  out.writeUInt8(0, 0); // Version v1
  out.writeUInt8(1, 1); // SignatureType tree_hash
  out.writeBigUInt64BE(BigInt(head.timestamp), 2);
  out.writeBigUInt64BE(BigInt(head.tree_size), 10);
  Buffer.from(hashFromHex(head.root_hash, 'root_hash')).copy(out, 18);
  return new Uint8Array(out);
}

/** RFC 6962 §3.2 LogID of an Ed25519 public key: hex SHA-256 of its DER SubjectPublicKeyInfo. */
export function keyIdOf(publicKey: Uint8Array): string {
  const der = Buffer.from(
    publicKeyToPem(publicKey)
      .replace(/-----[A-Z ]+-----/g, '')
      .replace(/\s+/g, ''),
    'base64',
  );
  return createHash('sha256').update(der).digest('hex');
}

/** Signs a head with `sign` (a signer of the log key, see crypto/ed25519.ts) and names the key. */
export function signTreeHead(head: TreeHead, sign: (message: Uint8Array) => Uint8Array, keyId: string): SignedTreeHead {
  return {
    tree_size: head.tree_size,
    root_hash: head.root_hash,
    timestamp: head.timestamp,
    signature: toBase64(sign(treeHeadSignatureInput(head))),
    key_id: keyId,
  };
}

/** Whether the head carries a valid signature of `publicKey` over its 50 bytes: the offline check of a head. */
export function verifyTreeHeadSignature(head: SignedTreeHead, publicKey: Uint8Array): Verdict {
  let message: Uint8Array;
  let signature: Uint8Array;
  try {
    message = treeHeadSignatureInput(head);
    signature = fromBase64(head.signature);
  } catch (error) {
    return { valid: false, reason: `the head is malformed: ${(error as Error).message}` };
  }
  return verify(signature, message, publicKey) ? { valid: true } : { valid: false, reason: 'the Ed25519 signature does not verify over the head' };
}
