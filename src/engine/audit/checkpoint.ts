/**
 * Signed checkpoints of the audit chain's head: the pure part, no I/O.
 *
 * A hash chain proves that nothing before its newest entry was changed, removed or inserted, but not that
 * its newest entries were not cut off: a chain that lost its last entries is a valid shorter chain. A
 * checkpoint closes that gap for every entry it covers. It says "the chain's entry number `size` (1 = the
 * oldest) is `entry_id`, whose entry_hash is `entry_hash`", signed with the transparency log's Ed25519 key
 * (RFC 8032) at `timestamp` (Unix ms). Because each entry's hash covers the entry before it, a chain that
 * still holds that entry at that position, with that hash, holds every entry up to it unchanged; a chain that
 * ends before it was cut.
 *
 * The signed bytes are the UTF-8 of the RFC 8785 (JCS) canonical JSON of
 * `{context, size, entry_id, entry_hash, timestamp}` with `context` = `CHECKPOINT_CONTEXT`. They begin with
 * `{`, so they can never be taken for the 50 bytes of a tree head, which the same key signs and which begin
 * with 0x00 (../../core/log/tree-head.ts); the context names what is signed, so a checkpoint is never anything else.
 */
import { canonicalJson } from '../../core/crypto/jcs.js';
import { fromBase64, toBase64, verify } from '../../core/crypto/ed25519.js';
import { keyIdOf } from '../../core/log/tree-head.js';

export const CHECKPOINT_CONTEXT = 'tradeseal audit chain checkpoint v1';

export interface AuditCheckpoint {
  /** The anchored entry's position in the chain, 1 = the oldest: the chain held `size` entries. */
  size: number;
  entry_id: string;
  entry_hash: string;
  /** When the log's key signed it, Unix ms. */
  timestamp: number;
}

export interface SignedAuditCheckpoint extends AuditCheckpoint {
  /** Standard base64 of the Ed25519 signature over `checkpointSignatureInput`. */
  signature: string;
  /** RFC 6962 §3.2 LogID of the signing key: the key of the log's tree heads. */
  key_id: string;
}

/** The bytes the log's key signs for a checkpoint (see the module comment). */
export function checkpointSignatureInput(c: AuditCheckpoint): Uint8Array {
  const text = canonicalJson({ context: CHECKPOINT_CONTEXT, size: c.size, entry_id: c.entry_id, entry_hash: c.entry_hash, timestamp: c.timestamp });
  return new Uint8Array(Buffer.from(text, 'utf8'));
}

export function signCheckpoint(c: AuditCheckpoint, sign: (message: Uint8Array) => Uint8Array, keyId: string): SignedAuditCheckpoint {
  return {
    size: c.size,
    entry_id: c.entry_id,
    entry_hash: c.entry_hash,
    timestamp: c.timestamp,
    signature: toBase64(sign(checkpointSignatureInput(c))),
    key_id: keyId,
  };
}

/** Why the checkpoint's signature does not hold under `publicKey`, or null when it does. */
export function badCheckpointSignature(c: SignedAuditCheckpoint, publicKey: Uint8Array): string | null {
  const keyId = keyIdOf(publicKey);
  if (c.key_id !== keyId) return `it names key ${c.key_id}, not the key ${keyId} it is checked with`;
  let signature: Uint8Array;
  try {
    signature = fromBase64(c.signature);
  } catch (error) {
    return `its signature is malformed: ${(error as Error).message}`;
  }
  return verify(signature, checkpointSignatureInput(c), publicKey) ? null : 'its Ed25519 signature does not verify';
}

const HEX64 = /^[0-9a-f]{64}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The fields of a signed checkpoint (a kept file, an engine's answer) that are missing or malformed; none: []. */
export function checkpointProblems(value: unknown): Array<{ field: string; message: string }> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [{ field: 'checkpoint', message: 'must be a JSON object' }];
  const c = value as Record<string, unknown>;
  const problems: Array<{ field: string; message: string }> = [];
  const need = (field: string, ok: boolean, message: string): void => {
    if (!ok) problems.push({ field, message });
  };
  need('size', Number.isSafeInteger(c.size) && (c.size as number) > 0, 'must be a positive integer');
  need('entry_id', typeof c.entry_id === 'string' && UUID.test(c.entry_id), 'must be a lowercase UUID');
  need('entry_hash', typeof c.entry_hash === 'string' && HEX64.test(c.entry_hash), 'must be 64 lowercase hex characters');
  need('timestamp', Number.isSafeInteger(c.timestamp) && (c.timestamp as number) >= 0, 'must be Unix milliseconds');
  need('signature', typeof c.signature === 'string' && c.signature.length > 0, 'must be the base64 signature');
  need('key_id', typeof c.key_id === 'string' && HEX64.test(c.key_id), 'must be 64 lowercase hex characters');
  return problems;
}

/** Where a chain walk found the anchored entry (by its id), or null when the chain does not hold it. */
export interface AnchoredEntryFound {
  position: number;
  entry_hash: string;
}

/**
 * Why a chain of `chainLength` entries, whose links all hold, does not extend the checkpoint, or null when it
 * does: it must hold the anchored entry, at its position, with its hash. `what` names the checkpoint.
 */
export function anchorBroken(c: AuditCheckpoint, found: AnchoredEntryFound | null, chainLength: number, what: string): string | null {
  const anchored = `entry ${c.size} (id ${c.entry_id}, entry_hash ${c.entry_hash}), which ${what} signed at ${new Date(c.timestamp).toISOString()} anchors`;
  if (found === null) {
    return chainLength < c.size
      ? `the chain ends at entry ${chainLength}, but ${anchored}, is missing: entries ${chainLength + 1} to ${c.size} were cut off its end`
      : `${anchored}, is not in the chain of ${chainLength} entries: the chain was rewritten up to it`;
  }
  if (found.position !== c.size) return `${anchored}, is entry ${found.position} of the chain: entries before it were removed or inserted`;
  if (found.entry_hash !== c.entry_hash) return `${anchored}, has entry_hash ${found.entry_hash} in the chain: the chain was rewritten up to it`;
  return null;
}
