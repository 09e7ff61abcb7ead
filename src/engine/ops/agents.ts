/**
 * Changes to the agent registry that the HTTP API (`/engine/admin/agents…`) and the CLI (`tradeseal engine
 * agents register|add-model|status`) share: both answer `not_found` (404, exit 3) with the same detail when
 * the agent is unknown, since there the agent is named by the URL or the command's argument. Registering an
 * agent has no rule beyond its schema (src/engine/inputs.ts).
 *
 * Each change is written to the audit log (`agent.register`, `agent.model_add`, `agent.status`) in the same
 * transaction, by `actor`. The agent's name is left out of the entry: a registration's details are personal
 * data that an erasure must be able to destroy, and the audit log is never rewritten.
 */
import type { Sql } from 'postgres';
import { notFound } from '../../core/errors.js';
import { withTransaction } from '../../store/transaction.js';
import { appendAudit } from '../audit/append.js';
import {
  addModel,
  getAgent,
  registerAgent,
  setAgentStatus,
  type Agent,
  type AgentStatus,
  type ApprovedModel,
  type RegisterAgentInput,
  type SealedName,
} from '../store/agents.js';

function found(agent: Agent | null, agentId: string): Agent {
  if (!agent) throw notFound(`no agent ${agentId}`, 'the agents are listed by `tradeseal engine agents list`');
  return agent;
}

export async function findAgent(sql: Sql, agentId: string): Promise<Agent> {
  return found(await getAgent(sql, agentId), agentId);
}

/** `sealedName`: the name already encrypted for a chosen agent id (src/engine/ops/agent-details.ts). */
export async function registerEngineAgent(sql: Sql, input: RegisterAgentInput, actor: string, sealedName?: SealedName): Promise<Agent> {
  return withTransaction(sql, async (tx) => {
    const agent = await registerAgent(tx, input, sealedName);
    // Picked field by field, so that a personal field added to agents later is not copied here unnoticed.
    const details = {
      status: agent.status,
      max_notional: agent.max_notional,
      allowed_regimes: agent.allowed_regimes,
      max_open_notional: agent.max_open_notional,
      models: agent.models,
    };
    await appendAudit(tx, { actor, action: 'agent.register', target_id: agent.agent_id, details });
    return agent;
  });
}

/** Approves another model version; approving one already approved changes nothing. */
export async function approveAgentModel(sql: Sql, agentId: string, model: ApprovedModel, actor: string): Promise<Agent> {
  return withTransaction(sql, async (tx) => {
    const agent = found(await addModel(tx, agentId, model), agentId);
    await appendAudit(tx, {
      actor,
      action: 'agent.model_add',
      target_id: agent.agent_id,
      details: { model_id: model.model_id, model_hash_hex: model.model_hash_hex },
    });
    return agent;
  });
}

/** The per-agent kill switch: Active, Suspended or Deregistered, with an optional reason. */
export async function changeAgentStatus(sql: Sql, agentId: string, status: AgentStatus, reason: string | null, actor: string): Promise<Agent> {
  return withTransaction(sql, async (tx) => {
    const agent = found(await setAgentStatus(tx, agentId, status, reason), agentId);
    await appendAudit(tx, { actor, action: 'agent.status', target_id: agent.agent_id, details: { status, reason } });
    return agent;
  });
}
