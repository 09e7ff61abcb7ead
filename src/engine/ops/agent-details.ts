/**
 * An agent's registration details as stored and as served, shared by the HTTP API and the CLI.
 *
 * The personal part is the `name` (src/engine/trace/personal.ts says why). With a key-management provider it
 * is encrypted under the agent's data key before the agent's row is written (the agent id is chosen first:
 * it is the encryption's associated data), and decrypted for every read. Without one it is stored as
 * given. Served agents carry `erased` and `erased_at`; an erased agent's name reads as null.
 */
import { randomUUID } from 'node:crypto';
import { AeadOpenError } from '../../core/crypto/aead.js';
import { TradesealError } from '../../core/errors.js';
import type { SqlOrTx } from '../../store/transaction.js';
import type { DataKeys } from '../../secrets/kms/data-keys.js';
import { openAgentName, sealAgentName } from '../trace/personal.js';
import type { Agent, SealedName } from '../store/agents.js';

export type AgentView = Omit<Agent, 'name_enc'> & { erased: boolean };

/** The encrypted name of an agent about to be registered, or undefined without a provider (stored as given). */
export async function sealedNameFor(sql: SqlOrTx, keys: DataKeys | null, name: string): Promise<SealedName | undefined> {
  if (!keys) return undefined;
  const agentId = randomUUID();
  const key = await keys.forWriting(sql, agentId);
  if (!key) throw new TradesealError('internal', `a fresh agent id ${agentId} already has a destroyed data key`);
  return { agent_id: agentId, name_enc: sealAgentName(key, agentId, name) };
}

export async function agentView(sql: SqlOrTx, keys: DataKeys | null, agent: Agent): Promise<AgentView> {
  const { name_enc: sealed, ...rest } = agent;
  const view = { ...rest, erased: agent.erased_at !== null };
  if (sealed === null) return view;
  if (!keys) {
    throw new TradesealError('precondition_failed', `the name of agent ${agent.agent_id} is encrypted, and no key-management provider is configured`, {
      hint: 'set KMS_PROVIDER and its key settings (KMS_MASTER_KEY_FILE for local)',
    });
  }
  const key = await keys.forReading(sql, agent.agent_id);
  try {
    // A name that does not decrypt (altered in the store) reads as null rather than failing a whole listing.
    return { ...view, name: key ? openAgentName(key, agent.agent_id, sealed) : null };
  } catch (error) {
    if (error instanceof AeadOpenError) return { ...view, name: null };
    throw error;
  }
}

export async function agentViews(sql: SqlOrTx, keys: DataKeys | null, agents: Agent[]): Promise<AgentView[]> {
  const views: AgentView[] = [];
  for (const agent of agents) views.push(await agentView(sql, keys, agent));
  return views;
}
