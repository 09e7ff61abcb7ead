/**
 * Layer 2: the stateless checks of a signed heartbeat, in the order of
 * docs/decisions/0011-layer-2-heartbeat.md: signature against the regime operator's key, timestamp within the
 * replay window (both directions), regime id, and mta_ref.
 * The stateful check (each `sequence_id` once, and increasing per agent) is atomic in the store
 * (`insertTrace`, which spends it in the statement that seals the trace), after these pass.
 */
import { verifyAsync } from '../../core/crypto/ed25519.js';
import { deny, PASS, type Verdict } from '../denials.js';
import { heartbeatMessage, parseSignature, type SignedHeartbeat } from '../../core/records/heartbeat.js';

export type { SignedHeartbeat };

/**
 * Whether the signature verifies (on libuv's thread pool, off the event loop); false (never a rejection) for
 * any malformed signature or missing key.
 */
export async function heartbeatSignatureValid(hb: SignedHeartbeat, operatorKey: Uint8Array | null): Promise<boolean> {
  if (!operatorKey) return false;
  const sig = parseSignature(hb.signature);
  if (!sig) return false;
  try {
    return await verifyAsync(sig.bytes, heartbeatMessage(hb, sig.scheme), operatorKey);
  } catch {
    return false;
  }
}

export interface HeartbeatContext {
  now: number;
  replayWindowMs: number;
  /** The regime in force: its id and the hash of its broadcast; null when none is published. */
  regime: { regime_id: number; hash: string } | null;
  requireMtaRef: boolean;
}

export function checkHeartbeat(hb: SignedHeartbeat, signatureValid: boolean, ctx: HeartbeatContext): Verdict {
  if (!signatureValid) return deny('heartbeat_signature_invalid', `heartbeat ${hb.sequence_id} does not carry a valid signature of the regime operator`);
  const skew = ctx.now - hb.timestamp_ms;
  if (Math.abs(skew) > ctx.replayWindowMs) {
    return deny('heartbeat_expired', `heartbeat timestamp_ms ${hb.timestamp_ms} is ${skew} ms from the engine clock (window ±${ctx.replayWindowMs} ms)`);
  }
  if (!ctx.regime) return deny('regime_stale', 'no regime is published; the engine fails closed');
  if (hb.regime_id !== ctx.regime.regime_id) {
    return deny('heartbeat_regime_mismatch', `heartbeat regime_id ${hb.regime_id} is not the current regime_id ${ctx.regime.regime_id}`);
  }
  if (hb.mta_ref == null) {
    if (ctx.requireMtaRef) return deny('heartbeat_mta_required', 'the heartbeat carries no mta_ref and HEARTBEAT_REQUIRE_MTA_REF is on');
  } else if (hb.mta_ref !== ctx.regime.hash) {
    return deny('heartbeat_mta_mismatch', `heartbeat mta_ref ${hb.mta_ref} is not the current regime hash ${ctx.regime.hash}`);
  }
  return PASS;
}
