/**
 * The bytes a heartbeat signature covers, in the two schemes of docs/decisions/0012-heartbeat-signature-schemes.md
 * (the two interface documents disagree, so both are supported; the signature string names its scheme):
 *
 * - `ed25519:<base64>` (a bare base64 string means the same): `sequence_id` (u64 big-endian, 8 bytes) ‖
 *   `timestamp_ms` (u64 big-endian, 8 bytes) ‖ `regime_id` (1 byte) ‖ UTF-8 of `mta_ref` (nothing when
 *   absent). The layout existing heartbeat issuers of this interface use, and the signal service's default.
 * - `ed25519-jcs:<base64>`: RFC 8785 JCS of `{sequence_id, timestamp_ms, regime_id, mta_ref}`, the key
 *   `mta_ref` omitted when the heartbeat has none.
 *
 * Shared by the engine (verification) and the signal service (issuing), so the two cannot drift.
 */
import { canonicalJson } from '../crypto/jcs.js';
import { fromBase64, toBase64 } from '../crypto/ed25519.js';

export interface HeartbeatFields {
  sequence_id: number;
  timestamp_ms: number;
  regime_id: number;
  mta_ref?: string | null | undefined;
}

export type SignatureScheme = 'ed25519' | 'ed25519-jcs';
export const SIGNATURE_SCHEMES: readonly SignatureScheme[] = ['ed25519', 'ed25519-jcs'];

const encoder = new TextEncoder();

export function heartbeatMessage(hb: HeartbeatFields, scheme: SignatureScheme): Uint8Array {
  if (scheme === 'ed25519-jcs') {
    const fields: Record<string, unknown> = { sequence_id: hb.sequence_id, timestamp_ms: hb.timestamp_ms, regime_id: hb.regime_id };
    if (hb.mta_ref != null) fields.mta_ref = hb.mta_ref;
    return encoder.encode(canonicalJson(fields));
  }
  if (!(hb.regime_id >= 0 && hb.regime_id <= 255)) throw new RangeError(`regime_id must fit in one byte, got ${hb.regime_id}`);
  const mta = hb.mta_ref != null ? encoder.encode(hb.mta_ref) : new Uint8Array(0);
  const out = new Uint8Array(17 + mta.length);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(hb.sequence_id), false);
  view.setBigUint64(8, BigInt(hb.timestamp_ms), false);
  view.setUint8(16, hb.regime_id);
  out.set(mta, 17);
  return out;
}

/** Splits `scheme:base64` (or bare base64, meaning `ed25519`) into its scheme and bytes; null when malformed. */
export function parseSignature(text: string): { scheme: SignatureScheme; bytes: Uint8Array } | null {
  const colon = text.indexOf(':');
  const scheme = colon < 0 ? 'ed25519' : text.slice(0, colon);
  if (!(SIGNATURE_SCHEMES as readonly string[]).includes(scheme)) return null;
  try {
    const bytes = fromBase64(colon < 0 ? text : text.slice(colon + 1));
    return bytes.length === 64 ? { scheme: scheme as SignatureScheme, bytes } : null;
  } catch {
    return null;
  }
}

export const formatSignature = (scheme: SignatureScheme, bytes: Uint8Array): string => `${scheme}:${toBase64(bytes)}`;

/** A heartbeat with its signature (`ed25519:` + hex, or the legacy bare hex). */
export interface SignedHeartbeat extends HeartbeatFields {
  signature: string;
}
