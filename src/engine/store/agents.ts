/** The agent registry: agents, their approved model versions, and the per-agent kill switch (status). */
import { randomUUID } from 'node:crypto';
import type { Sql } from 'postgres';
import type { Regime } from '../vocabulary.js';

export const AGENT_STATUSES = ['Active', 'Suspended', 'Deregistered'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

export interface ApprovedModel {
  model_id: string;
  model_hash_hex: string;
}

export interface Agent {
  agent_id: string;
  name: string;
  status: AgentStatus;
  status_reason: string | null;
  max_notional: number;
  allowed_regimes: Regime[] | null;
  models: ApprovedModel[];
  created_at: Date;
}

export interface RegisterAgentInput {
  name: string;
  max_notional: number;
  models: ApprovedModel[];
  allowed_regimes?: Regime[] | null;
}

const SELECT = `
  select a.agent_id, a.name, a.status, a.status_reason, a.max_notional, a.allowed_regimes, a.created_at,
         coalesce(jsonb_agg(jsonb_build_object('model_id', m.model_id, 'model_hash_hex', m.model_hash_hex)
                  order by m.created_at, m.model_id, m.model_hash_hex) filter (where m.model_id is not null), '[]') as models
  from agents a left join agent_models m on m.agent_id = a.agent_id`;

export async function getAgent(sql: Sql, agentId: string): Promise<Agent | null> {
  const rows = await sql.unsafe<Agent[]>(`${SELECT} where a.agent_id = $1 group by a.agent_id`, [agentId]);
  return rows[0] ?? null;
}

export async function listAgents(sql: Sql): Promise<Agent[]> {
  return sql.unsafe<Agent[]>(`${SELECT} group by a.agent_id order by a.created_at, a.agent_id`);
}

export async function registerAgent(sql: Sql, input: RegisterAgentInput): Promise<Agent> {
  const agentId = randomUUID();
  await sql.begin(async (tx) => {
    await tx`insert into agents (agent_id, name, max_notional, allowed_regimes)
             values (${agentId}, ${input.name}, ${input.max_notional}, ${input.allowed_regimes ?? null})`;
    for (const m of dedupeModels(input.models)) {
      await tx`insert into agent_models (agent_id, model_id, model_hash_hex) values (${agentId}, ${m.model_id}, ${m.model_hash_hex})`;
    }
  });
  return (await getAgent(sql, agentId)) as Agent;
}

/** Which of `agentIds` name registered agents (any status), in the store's lowercase form. */
export async function registeredAgentIds(sql: Sql, agentIds: readonly string[]): Promise<string[]> {
  if (agentIds.length === 0) return [];
  const rows = await sql.unsafe<Array<{ agent_id: string }>>('select agent_id from agents where agent_id = any($1::uuid[])', [agentIds] as never[]);
  return rows.map((r) => r.agent_id);
}

/** Adds an approved model version; adding one already approved changes nothing. Null when the agent is unknown. */
export async function addModel(sql: Sql, agentId: string, model: ApprovedModel): Promise<Agent | null> {
  const [exists] = await sql`select 1 from agents where agent_id = ${agentId}`;
  if (!exists) return null;
  await sql`insert into agent_models (agent_id, model_id, model_hash_hex) values (${agentId}, ${model.model_id}, ${model.model_hash_hex})
            on conflict do nothing`;
  return getAgent(sql, agentId);
}

export async function setAgentStatus(sql: Sql, agentId: string, status: AgentStatus, reason: string | null): Promise<Agent | null> {
  const rows = await sql`update agents set status = ${status}, status_reason = ${reason}, updated_at = now() where agent_id = ${agentId} returning agent_id`;
  return rows.length === 0 ? null : getAgent(sql, agentId);
}

/** What authorize needs to know of an agent, in one round trip. */
export interface AgentForAuthorize {
  status: AgentStatus;
  max_notional: number;
  allowed_regimes: Regime[] | null;
  model_registered: boolean;
}

/**
 * Authorize's one read: the idempotency record of (agent, client_order_id) if any, the agent's facts, and
 * the last heartbeat sequence_id accepted from the agent, in a single round trip.
 */
export async function authorizeLookup(sql: Sql, agentId: string, clientOrderId: string, modelId: string, modelHashHex: string):
  Promise<{ prior: { order_hash: string; response: unknown } | null; agent: AgentForAuthorize | null; lastSequence: number | null }> {
  const [row] = await sql<Array<{ order_hash: string | null; response: unknown; status: AgentStatus | null; max_notional: number; allowed_regimes: Regime[] | null; model_registered: boolean; last_sequence_id: number | null }>>`
    select i.order_hash, i.response, a.status, a.max_notional, a.allowed_regimes, hm.last_sequence_id,
           exists (select 1 from agent_models m where m.agent_id = ${agentId} and m.model_id = ${modelId} and m.model_hash_hex = ${modelHashHex}) as model_registered
    from (select 1) as one
    left join trace_idempotency i on i.agent_id = ${agentId} and i.client_order_id = ${clientOrderId}
    left join agents a on a.agent_id = ${agentId}
    left join heartbeat_marks hm on hm.agent_id = ${agentId}`;
  if (!row) return { prior: null, agent: null, lastSequence: null };
  return {
    prior: row.order_hash === null ? null : { order_hash: row.order_hash, response: row.response },
    agent: row.status === null ? null : { status: row.status, max_notional: row.max_notional, allowed_regimes: row.allowed_regimes, model_registered: row.model_registered },
    lastSequence: row.last_sequence_id,
  };
}


function dedupeModels(models: ApprovedModel[]): ApprovedModel[] {
  const seen = new Map<string, ApprovedModel>();
  for (const m of models) seen.set(`${m.model_id}\u0000${m.model_hash_hex}`, m);
  return [...seen.values()];
}
