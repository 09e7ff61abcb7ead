/**
 * Hash-only model approval for IRL clients' orders. The IRL Engine approves a model by its hash alone; tradeseal
 * approves the pair (`model_id`, `model_hash_hex`). On `/irl/authorize`, when the pair the order names is not
 * approved but the hash is approved for the agent under another model id, the order is sealed with that model
 * id: the trace holds tradeseal's canonical values, the pair the engine approved. When the hash is approved
 * under no model id the order goes on unchanged and is refused as on `/engine` (`model_not_registered`).
 *
 * It reads the store, so it runs only once the engine's schema has accepted the order (a `preHandler`, see
 * ./index.ts): input the schema refuses (a NUL in `model_id`, 1 MB of text) never reaches a query. The model
 * id it puts in is one the engine's schema accepted when the model was approved.
 */
import type { Sql } from 'postgres';
import type { AuthorizeRequest } from '../../engine/authorize.js';

/** The agent's model id for this hash: the order's own when that pair is approved, else the oldest approval. */
export async function approvedModelId(sql: Sql, agentId: string, modelId: string, modelHashHex: string): Promise<string | null> {
  const rows = await sql<Array<{ model_id: string }>>`
    select model_id from agent_models
    where agent_id = ${agentId} and model_hash_hex = ${modelHashHex}
    order by (model_id = ${modelId}) desc, created_at, model_id
    limit 1`;
  return rows[0]?.model_id ?? null;
}

/** The order, as the engine's schema accepted it, with the model id its hash is approved under. */
export async function withApprovedModel(sql: Sql, order: AuthorizeRequest): Promise<AuthorizeRequest> {
  const approved = await approvedModelId(sql, order.agent_id, order.model_id, order.model_hash_hex);
  return approved === null || approved === order.model_id ? order : { ...order, model_id: approved };
}
