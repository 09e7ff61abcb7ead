/** The agent registry: agents, their approved model versions, and the per-agent kill switch (status). */
import { randomUUID } from 'node:crypto';
import type { Sql } from 'postgres';
import { withTransaction, type SqlOrTx } from '../../store/transaction.js';
import { regimeName, type Regime, type RegimeRef } from '../../core/vocabulary.js';

export const AGENT_STATUSES = ['Active', 'Suspended', 'Deregistered'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

export interface ApprovedModel {
  model_id: string;
  model_hash_hex: string;
}

export interface Agent {
  agent_id: string;
  /** In the clear when no key-management provider was configured at registration; null when encrypted or erased. */
  name: string | null;
  /** The name encrypted under the agent's data key (src/engine/ops/agent-details.ts reads it); null once erased. */
  name_enc: Buffer | null;
  /** When the agent's personal data were erased; null when not. */
  erased_at: Date | null;
  status: AgentStatus;
  status_reason: string | null;
  max_notional: number;
  allowed_regimes: Regime[] | null;
  max_open_notional: number | null;
  models: ApprovedModel[];
  created_at: Date;
}

export interface RegisterAgentInput {
  name: string;
  max_notional: number;
  models: ApprovedModel[];
  /** By name or wire id; stored as names, each once. */
  allowed_regimes?: RegimeRef[] | null;
  max_open_notional?: number | null;
}

const SELECT = `
  select a.agent_id, a.name, a.name_enc, a.erased_at, a.status, a.status_reason, a.max_notional, a.allowed_regimes, a.max_open_notional, a.created_at,
         coalesce(jsonb_agg(jsonb_build_object('model_id', m.model_id, 'model_hash_hex', m.model_hash_hex)
                  order by m.created_at, m.model_id, m.model_hash_hex) filter (where m.model_id is not null), '[]') as models
  from agents a left join agent_models m on m.agent_id = a.agent_id`;

export async function getAgent(sql: SqlOrTx, agentId: string): Promise<Agent | null> {
  const rows = await sql.unsafe<Agent[]>(`${SELECT} where a.agent_id = $1 group by a.agent_id`, [agentId]);
  return rows[0] ?? null;
}

export async function listAgents(sql: Sql): Promise<Agent[]> {
  return sql.unsafe<Agent[]>(`${SELECT} group by a.agent_id order by a.created_at, a.agent_id`);
}

/** A name encrypted for an agent id chosen in advance (the id is the encryption's associated data). */
export interface SealedName {
  agent_id: string;
  name_enc: Buffer;
}

export async function registerAgent(sql: SqlOrTx, input: RegisterAgentInput, sealedName?: SealedName): Promise<Agent> {
  const agentId = sealedName?.agent_id ?? randomUUID();
  // In the caller's transaction when it has one (the registration and its audit entry commit together).
  await withTransaction(sql, async (tx) => {
    const regimes = input.allowed_regimes ? [...new Set(input.allowed_regimes.map(regimeName))] : null;
    await tx`insert into agents (agent_id, name, name_enc, max_notional, allowed_regimes, max_open_notional)
             values (${agentId}, ${sealedName ? null : input.name}, ${sealedName?.name_enc ?? null}, ${input.max_notional}, ${regimes}, ${input.max_open_notional ?? null})`;
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
export async function addModel(sql: SqlOrTx, agentId: string, model: ApprovedModel): Promise<Agent | null> {
  const [exists] = await sql`select 1 from agents where agent_id = ${agentId}`;
  if (!exists) return null;
  await sql`insert into agent_models (agent_id, model_id, model_hash_hex) values (${agentId}, ${model.model_id}, ${model.model_hash_hex})
            on conflict do nothing`;
  return getAgent(sql, agentId);
}

export async function setAgentStatus(sql: SqlOrTx, agentId: string, status: AgentStatus, reason: string | null): Promise<Agent | null> {
  const rows = await sql`update agents set status = ${status}, status_reason = ${reason}, updated_at = now() where agent_id = ${agentId} returning agent_id`;
  return rows.length === 0 ? null : getAgent(sql, agentId);
}

/** What authorize needs to know of an agent, in one round trip. */
export interface AgentForAuthorize {
  status: AgentStatus;
  max_notional: number;
  allowed_regimes: Regime[] | null;
  max_open_notional: number | null;
  model_registered: boolean;
  /** Erased agents cannot authorize (`agent_not_active`). */
  erased: boolean;
}

/** What authorize looks up for one order. */
export interface AuthorizeLookupKey {
  agentId: string;
  clientOrderId: string;
  modelId: string;
  modelHashHex: string;
}

export interface AuthorizeLookup {
  prior: { order_hash: string; response: unknown } | null;
  agent: AgentForAuthorize | null;
  lastSequence: number | null;
}

/**
 * Authorize's one read, for several orders at once (one round trip; the lookups of ./batching.ts batch
 * concurrent authorizes): per order, in the keys' order, the idempotency record of (agent,
 * client_order_id) if any, the agent's facts, whether the model version is approved, and the last heartbeat
 * sequence_id accepted from the agent.
 */
export async function authorizeLookups(sql: Sql, keys: readonly AuthorizeLookupKey[]): Promise<AuthorizeLookup[]> {
  const input = keys.map((k, ord) => ({ ord, agent_id: k.agentId, client_order_id: k.clientOrderId, model_id: k.modelId, model_hash_hex: k.modelHashHex }));
  const rows = await sql<
    Array<{
      ord: number;
      order_hash: string | null;
      response: unknown;
      status: AgentStatus | null;
      max_notional: number;
      allowed_regimes: Regime[] | null;
      max_open_notional: number | null;
      model_registered: boolean;
      erased: boolean;
      last_sequence_id: number | null;
    }>
  >`
    select x.ord, i.order_hash, i.response, a.status, a.max_notional, a.allowed_regimes, a.max_open_notional, hm.last_sequence_id, a.erased_at is not null as erased,
           exists (select 1 from agent_models m where m.agent_id = x.agent_id and m.model_id = x.model_id and m.model_hash_hex = x.model_hash_hex) as model_registered
    from jsonb_to_recordset(${sql.json(input as never)}) as x(ord int, agent_id uuid, client_order_id text, model_id text, model_hash_hex text)
    -- Each a lookup by key per order (offset 0 keeps the planner from turning them into scans of whole tables).
    left join lateral (select order_hash, response from trace_idempotency where agent_id = x.agent_id and client_order_id = x.client_order_id offset 0) i on true
    left join lateral (select * from agents where agent_id = x.agent_id offset 0) a on true
    left join lateral (select last_sequence_id from heartbeat_marks where agent_id = x.agent_id offset 0) hm on true
    order by x.ord`;
  if (rows.length !== keys.length) throw new Error(`the authorize lookup answered ${rows.length} rows for ${keys.length} orders`);
  return rows.map((row) => ({
    prior: row.order_hash === null ? null : { order_hash: row.order_hash, response: row.response },
    agent:
      row.status === null
        ? null
        : {
            status: row.status,
            max_notional: row.max_notional,
            allowed_regimes: row.allowed_regimes,
            max_open_notional: row.max_open_notional,
            model_registered: row.model_registered,
            erased: row.erased,
          },
    lastSequence: row.last_sequence_id,
  }));
}

/**
 * Hash-only model approval (the IRL Engine approves a model by its hash alone; tradeseal the pair): the model id
 * the agent's approval of `modelHashHex` is under, the order's own `modelId` when that pair is approved, else the
 * oldest approval; null when the hash is approved under no model id.
 */
export async function approvedModelId(sql: Sql, agentId: string, modelId: string, modelHashHex: string): Promise<string | null> {
  const rows = await sql<Array<{ model_id: string }>>`
    select model_id from agent_models
    where agent_id = ${agentId} and model_hash_hex = ${modelHashHex}
    order by (model_id = ${modelId}) desc, created_at, model_id
    limit 1`;
  return rows[0]?.model_id ?? null;
}

function dedupeModels(models: ApprovedModel[]): ApprovedModel[] {
  const seen = new Map<string, ApprovedModel>();
  for (const m of models) seen.set(`${m.model_id}\u0000${m.model_hash_hex}`, m);
  return [...seen.values()];
}
