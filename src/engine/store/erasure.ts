/**
 * The statements of an erasure (src/engine/ops/erase.ts runs them in one transaction): lock the agent, then
 * remove every stored form of its personal data, ciphertext and plaintext alike (rows stored in plaintext
 * before a key-management provider was configured are nulled the same way), and mark what was erased.
 */
import type { TransactionSql } from 'postgres';

export interface AgentToErase {
  agent_id: string;
  erased_at: Date | null;
  /** The store's clock, to the millisecond: the erasure's time. */
  now: Date;
}

/** The agent, locked against concurrent changes until the transaction ends; null when unknown. */
export async function lockAgentForErasure(tx: TransactionSql, agentId: string): Promise<AgentToErase | null> {
  const [row] = await tx<AgentToErase[]>`
    select agent_id, erased_at, date_trunc('milliseconds', clock_timestamp()) as now from agents where agent_id = ${agentId} for update`;
  return row ?? null;
}

/**
 * Nulls the personal data of the agent and of its traces, marks them erased at `at`, and deletes the
 * agent's idempotency records: their `order_hash` is an unsalted SHA-256 over the order with its
 * regulatory block, which guessed names could be tested against. Returns how many traces were marked.
 */
export async function erasePersonalData(tx: TransactionSql, agentId: string, at: Date): Promise<number> {
  const traces = await tx`
    update traces set regulatory = null, regulatory_salt = null, regulatory_enc = null, erased_at = ${at}
    where agent_id = ${agentId} and erased_at is null`;
  await tx`update agents set name = null, name_enc = null, erased_at = ${at}, updated_at = now() where agent_id = ${agentId}`;
  await tx`delete from trace_idempotency where agent_id = ${agentId}`;
  return traces.count;
}
