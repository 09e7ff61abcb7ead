/**
 * Sealing: the hashes that make a trace a proof (docs/decisions/0006-sealed-hashes.md).
 *
 * - `latent_fingerprint` = SHA-256(JCS([model_id, prompt_version, feature_schema_id, hyperparameter_checksum]))
 * - `reasoning_hash` = SHA-256(JCS(trace without `integrity`)), where a non-null `regulatory` block (personal
 *   data) is replaced by its salted commitment `{commitment: SHA-256(salt ‖ JCS(regulatory))}`, so the proof
 *   survives a later erasure of the personal data.
 * - `final_proof` = SHA-256 of the ASCII text `reasoning_hash + "||" + exchange_tx_id`.
 */
import { randomBytes } from 'node:crypto';
import { hashJson, sha256Hex } from '../../core/crypto/hash.js';
import { canonicalJson } from '../../core/crypto/jcs.js';

export const TRACE_VERSION = 'Reasoning_Trace_v1';

export interface RegulatoryBlock {
  mifid_algo_id?: string | null;
  mifid_decision_maker?: string | null;
  cftc_cti_code?: string | null;
  cftc_account_type?: string | null;
  cat_order_id?: string | null;
  jurisdiction?: string | null;
}

export function latentFingerprint(modelId: string, promptVersion: string, featureSchemaId: string, hyperparameterChecksum: string): string {
  return hashJson([modelId, promptVersion, featureSchemaId, hyperparameterChecksum]);
}

/** 32 random bytes per trace, kept with the (later encrypted) personal data. */
export const newRegulatorySalt = (): Buffer => randomBytes(32);

/** SHA-256 hex of (salt ‖ JCS(regulatory)). */
export function regulatoryCommitment(salt: Uint8Array, regulatory: RegulatoryBlock): string {
  const body = Buffer.from(canonicalJson(regulatory), 'utf8');
  return sha256Hex(Buffer.concat([Buffer.from(salt), body]));
}

/**
 * The sealed form of a trace: the document without `integrity`, with `regulatory` replaced by its commitment.
 * Its JCS text is what `reasoning_hash` covers and what the store keeps byte for byte.
 */
export function sealedForm<T extends { regulatory?: unknown }>(
  doc: T,
  commitment: string | null,
): Omit<T, 'regulatory'> & { regulatory: { commitment: string } | null } {
  const { regulatory: _omit, ...rest } = doc;
  return { ...rest, regulatory: commitment === null ? null : { commitment } };
}

export const reasoningHashOf = (sealedJcs: string): string => sha256Hex(sealedJcs);

export const finalProof = (reasoningHash: string, exchangeTxId: string): string => sha256Hex(`${reasoningHash}||${exchangeTxId}`);
