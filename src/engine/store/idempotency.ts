/**
 * Idempotency of authorize on (agent_id, client_order_id): a retry of the same order gets the original
 * response and creates no trace; the same id with different order fields is a 409.
 */
import type { SqlOrTx } from '../../store/transaction.js';

export interface IdempotencyRecord {
  order_hash: string;
  trace_id: string;
  response: AuthorizeResponse;
}

export interface AuthorizeResponse {
  trace_id: string;
  reasoning_hash: string;
  authorized: boolean;
  shadow_blocked: boolean;
}

export async function findIdempotent(sql: SqlOrTx, agentId: string, clientOrderId: string): Promise<IdempotencyRecord | null> {
  const rows = await sql<IdempotencyRecord[]>`
    select order_hash, trace_id, response from trace_idempotency where agent_id = ${agentId} and client_order_id = ${clientOrderId}`;
  return rows[0] ?? null;
}
