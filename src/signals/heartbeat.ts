/**
 * Issuing signed heartbeats for the compliance engine's Layer 2: the regime in force (its id and broadcast
 * hash as `mta_ref`), a sequence id from one Postgres sequence (strictly increasing across instances), the
 * issuer's clock, and an Ed25519 signature in the `ed25519:` binary layout by default (see
 * src/engine/heartbeat/message.ts for both layouts).
 */
import type { Sql } from 'postgres';
import { sign } from '../crypto/ed25519.js';
import { TradesealError } from '../errors.js';
import { formatSignature, heartbeatMessage, type SignatureScheme } from '../engine/heartbeat/message.js';
import type { SignedHeartbeat } from '../engine/heartbeat/check.js';
import { currentRegime } from '../engine/store/regime.js';

export async function nextHeartbeatSequence(sql: Sql): Promise<number> {
  const [row] = await sql<Array<{ id: number }>>`select nextval('heartbeat_sequence_id') as id`;
  return (row as { id: number }).id;
}

export interface IssueHeartbeatOptions {
  secretKey: Uint8Array;
  now: number;
  scheme?: SignatureScheme;
}

export async function issueHeartbeat(sql: Sql, options: IssueHeartbeatOptions): Promise<SignedHeartbeat & { mta_ref: string }> {
  const regime = await currentRegime(sql);
  if (!regime) throw new TradesealError('regime_not_published', 'no regime is published: there is nothing to sign');
  const fields = { sequence_id: await nextHeartbeatSequence(sql), timestamp_ms: options.now, regime_id: regime.regime_id, mta_ref: regime.hash };
  const scheme = options.scheme ?? 'ed25519';
  return { ...fields, signature: formatSignature(scheme, sign(heartbeatMessage(fields, scheme), options.secretKey)) };
}
