/**
 * Erasure of an agent's personal data by crypto-shredding (docs/decisions/0016-erasure.md), shared by
 * `POST /engine/admin/gdpr-erase/{agent_id}` and `tradeseal engine erase AGENT_ID`.
 *
 * In one transaction, under a lock on the agent's row: the agent's wrapped data key is deleted (its row
 * stays, destroyed, so no key can be made for the agent again), the provider's own `destroy` runs if it has
 * one, the ciphertexts and any plaintext of the agent's name and of its traces' regulatory blocks and salts
 * are nulled, the agent and its traces are marked erased, and the audit chain gets a `gdpr.erase` entry
 * (last, as appendAudit asks). Then this process forgets its cached copy of the key.
 *
 * What stays: every sealed trace, `reasoning_hash`, `final_proof` and regulatory commitment (they never held
 * the personal data, only a salted commitment to it), and the audit chain. An erased agent cannot authorize
 * (`agent_not_active`).
 *
 * Without a key-management provider: 412 `precondition_failed` (there is no key to destroy). An unknown
 * agent: 404. Erasing an erased agent again changes nothing and answers the original `erased_at` with
 * `traces_affected: 0` (safe to retry after a lost answer); it appends no audit entry.
 */
import type { Sql } from 'postgres';
import { notFound, TradesealError } from '../../core/errors.js';
import { withTransaction } from '../../store/transaction.js';
import { appendAudit } from '../audit/append.js';
import type { DataKeys } from '../../secrets/kms/data-keys.js';
import { destroyDataKey } from '../../secrets/kms/data-key-rows.js';
import { erasePersonalData, lockAgentForErasure } from '../store/erasure.js';

export interface ErasureResult {
  agent_id: string;
  /** How many of the agent's traces this call marked erased (0 on a repeated erasure). */
  traces_affected: number;
  erased_at: Date;
}

export async function eraseAgent(sql: Sql, keys: DataKeys | null, agentId: string, actor: string): Promise<ErasureResult> {
  if (!keys) {
    throw new TradesealError(
      'precondition_failed',
      "erasure destroys the agent's data key, and no key-management provider is configured (KMS_PROVIDER is unset)",
      {
        hint: 'set KMS_PROVIDER=local and KMS_MASTER_KEY_FILE; personal data stored before then are in plaintext, and an erasure nulls them',
      },
    );
  }
  const result = await withTransaction(sql, async (tx) => {
    const agent = await lockAgentForErasure(tx, agentId);
    if (!agent) throw notFound(`no agent ${agentId}`, 'the agents are listed by `tradeseal engine agents list`');
    if (agent.erased_at) return { agent_id: agent.agent_id, traces_affected: 0, erased_at: agent.erased_at };
    const at = agent.now;
    const key = await destroyDataKey(tx, agent.agent_id, at, keys.provider);
    await keys.provider.destroy?.(key.key_id, agent.agent_id);
    const tracesAffected = await erasePersonalData(tx, agent.agent_id, at);
    await appendAudit(tx, {
      actor,
      action: 'gdpr.erase',
      target_id: agent.agent_id,
      details: { traces_affected: tracesAffected, erased_at: at.toISOString(), provider: key.provider, key_id: key.key_id },
    });
    return { agent_id: agent.agent_id, traces_affected: tracesAffected, erased_at: at };
  });
  keys.evict(result.agent_id);
  return result;
}
