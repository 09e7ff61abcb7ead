/**
 * Hash-only model approval for IRL clients' orders. The IRL Engine approves a model by its hash alone; tradeseal
 * approves the pair (`model_id`, `model_hash_hex`). On `/irl/authorize`, when the pair the order names is not
 * approved but the hash is approved for the agent under another model id, the order is sealed with that model
 * id: the trace holds tradeseal's canonical values, the pair the engine approved. When the hash is approved
 * under no model id the order goes on unchanged and is refused as on `/engine` (`model_not_registered`).
 */
import type { Sql } from 'postgres';
import { isRecord } from './authorize-input.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX64 = /^[0-9a-f]{64}$/;

/** The agent's model id for this hash: the order's own when that pair is approved, else the oldest approval. */
export async function approvedModelId(sql: Sql, agentId: string, modelId: string, modelHashHex: string): Promise<string | null> {
  const rows = await sql<Array<{ model_id: string }>>`
    select model_id from agent_models
    where agent_id = ${agentId} and model_hash_hex = ${modelHashHex}
    order by (model_id = ${modelId}) desc, created_at, model_id
    limit 1`;
  return rows[0]?.model_id ?? null;
}

/** The order with the model id its hash is approved under; unchanged when the fields are not yet valid. */
export async function withApprovedModel(sql: Sql, body: unknown): Promise<unknown> {
  if (!isRecord(body)) return body;
  const { agent_id: agentId, model_id: modelId, model_hash_hex: hash } = body;
  if (typeof agentId !== 'string' || !UUID.test(agentId) || typeof modelId !== 'string' || typeof hash !== 'string' || !HEX64.test(hash)) return body;
  const approved = await approvedModelId(sql, agentId, modelId, hash);
  return approved === null || approved === modelId ? body : { ...body, model_id: approved };
}
