/**
 * The per-agent data keys in the store (table `agent_data_keys`): only in the wrapped form the key-management
 * provider made, with the provider's name and key id. A destroyed key keeps its row without the key
 * material, so no new key can be made for an erased agent.
 */
import type { SqlOrTx } from '../../store/transaction.js';

export interface StoredDataKey {
  agent_id: string;
  provider: string;
  key_id: string;
  /** Null once destroyed. */
  wrapped_key: Buffer | null;
  created_at: Date;
  destroyed_at: Date | null;
}

export async function getDataKey(sql: SqlOrTx, agentId: string): Promise<StoredDataKey | null> {
  const rows = await sql<StoredDataKey[]>`select * from agent_data_keys where agent_id = ${agentId}`;
  return rows[0] ?? null;
}

/**
 * Stores a newly wrapped key unless the agent has one (live or destroyed) already, and returns the agent's
 * key as stored: of two processes making a first key for one agent at once, both end up with the same.
 */
export async function insertDataKey(sql: SqlOrTx, key: { agent_id: string; provider: string; key_id: string; wrapped_key: Buffer }): Promise<StoredDataKey> {
  const [inserted] = await sql<StoredDataKey[]>`
    insert into agent_data_keys (agent_id, provider, key_id, wrapped_key)
    values (${key.agent_id}, ${key.provider}, ${key.key_id}, ${key.wrapped_key})
    on conflict (agent_id) do nothing
    returning *`;
  if (inserted) return inserted;
  // The conflicting row was committed after this statement's snapshot, so the statement itself could not
  // read it; the next statement (read committed: a new snapshot) does.
  const stored = await getDataKey(sql, key.agent_id);
  if (!stored) throw new Error(`agent_data_keys: the row of agent ${key.agent_id} that refused the insert is not visible`);
  return stored;
}

/**
 * Destroys the agent's key: deletes the key material and records when. An agent that never had a key gets
 * a destroyed row, so none can be made later. Returns the row's provider and key id (for the provider's
 * own `destroy`).
 */
export async function destroyDataKey(sql: SqlOrTx, agentId: string, at: Date, provider: { name: string; keyId: string }): Promise<StoredDataKey> {
  const [row] = await sql<StoredDataKey[]>`
    insert into agent_data_keys (agent_id, provider, key_id, wrapped_key, destroyed_at)
    values (${agentId}, ${provider.name}, ${provider.keyId}, null, ${at})
    on conflict (agent_id) do update set wrapped_key = null, destroyed_at = coalesce(agent_data_keys.destroyed_at, excluded.destroyed_at)
    returning *`;
  return row as StoredDataKey;
}

/** One live wrapped key for each (provider, key id) in the store: what a start checks the provider against. */
export async function liveKeySamples(sql: SqlOrTx): Promise<StoredDataKey[]> {
  return sql<StoredDataKey[]>`
    select distinct on (provider, key_id) * from agent_data_keys
    where wrapped_key is not null order by provider, key_id, created_at`;
}
