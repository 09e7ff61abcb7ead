/**
 * A trace's personal data (its regulatory block and the block's salt) on the way into the store and out of
 * it, shared by authorize, the trace routes and the CLI.
 *
 * In: with a key-management provider the block and salt are encrypted together under the agent's data key
 * (src/engine/trace/personal.ts) and the plaintext columns stay null; without one they are stored as given.
 * Out: decrypted with the agent's cached data key; a trace of an erased agent reads as erased, confirmed by
 * the agent's destroyed data key. Rows stored in plaintext before a provider was configured read as they
 * are (and an erasure nulls them like the ciphertexts).
 */
import { AeadOpenError } from '../../core/crypto/aead.js';
import { forbidden, TradesealError } from '../../core/errors.js';
import type { SqlOrTx } from '../../store/transaction.js';
import type { DataKeys } from '../../secrets/kms/data-keys.js';
import { openTracePersonal, sealTracePersonal } from '../trace/personal.js';
import { getDataKey } from '../../secrets/kms/data-key-rows.js';
import type { NewTrace, TraceRow } from '../store/traces.js';
import { plainPersonal, type TracePersonal } from '../trace/read.js';
import type { RegulatoryBlock } from '../trace/seal.js';

/**
 * The key authorize encrypts an agent's regulatory block with: null without a provider, or when the order
 * carries no block (no key is made then). An agent whose key was destroyed is erased: `agent_not_active`.
 */
export async function regulatoryKeyFor(sql: SqlOrTx, keys: DataKeys | null, agentId: string, hasRegulatory: boolean): Promise<Buffer | null> {
  if (!keys || !hasRegulatory) return null;
  const key = await keys.forWriting(sql, agentId);
  if (!key) throw forbidden('agent_not_active', `agent ${agentId} was erased`);
  return key;
}

/** The personal columns of a new trace: encrypted under `key` when there is one, else in the clear. */
export function storedRegulatory(
  key: Buffer | null,
  traceId: string,
  regulatory: RegulatoryBlock | null,
  salt: Buffer | null,
): Pick<NewTrace, 'regulatory' | 'regulatory_salt' | 'regulatory_enc'> {
  if (!regulatory || !salt) return { regulatory: null, regulatory_salt: null, regulatory_enc: null };
  if (!key) return { regulatory, regulatory_salt: salt, regulatory_enc: null };
  return { regulatory: null, regulatory_salt: null, regulatory_enc: sealTracePersonal(key, traceId, { regulatory, salt }) };
}

/** The personal data of a stored trace, decrypted, or marked erased. */
export async function tracePersonal(sql: SqlOrTx, keys: DataKeys | null, row: TraceRow): Promise<TracePersonal> {
  if (row.erased_at !== null) {
    const key = await getDataKey(sql, row.agent_id);
    return { regulatory: null, salt: null, erasedAt: row.erased_at, erasureConfirmed: key?.destroyed_at != null, problem: null };
  }
  if (row.regulatory_enc === null) return plainPersonal(row);
  if (!keys) {
    throw new TradesealError('precondition_failed', `the personal data of trace ${row.trace_id} are encrypted, and no key-management provider is configured`, {
      hint: 'set KMS_PROVIDER and its key settings (KMS_MASTER_KEY_FILE for local)',
    });
  }
  const key = await keys.forReading(sql, row.agent_id);
  const unreadable = (why: string): TracePersonal => ({ regulatory: null, salt: null, erasedAt: null, erasureConfirmed: false, problem: why });
  if (!key) {
    // A trace sealed while its agent was being erased may carry a ciphertext under the key just destroyed:
    // it is erased as surely as the others.
    const stored = await getDataKey(sql, row.agent_id);
    if (stored?.destroyed_at) return { regulatory: null, salt: null, erasedAt: stored.destroyed_at, erasureConfirmed: true, problem: null };
    return unreadable(`the regulatory block is stored encrypted, but agent ${row.agent_id} has no data key to read it with`);
  }
  try {
    const { regulatory, salt } = openTracePersonal(key, row.trace_id, row.regulatory_enc);
    return { regulatory, salt, erasedAt: null, erasureConfirmed: false, problem: null };
  } catch (error) {
    if (error instanceof AeadOpenError)
      return unreadable(
        "the encrypted regulatory block does not decrypt under its agent's data key for this trace: it was altered, or copied from another trace",
      );
    throw error;
  }
}
