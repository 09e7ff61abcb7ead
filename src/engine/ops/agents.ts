/**
 * Changes to a registered agent that the HTTP API (`/engine/admin/agents/{agent_id}/…`) and the CLI
 * (`tradeseal engine agents add-model|status AGENT_ID`) share: both answer `not_found` (404, exit 3) with the
 * same detail when the agent is unknown, since there the agent is named by the URL or the command's argument.
 * Registering an agent has no rule beyond its schema (src/engine/inputs.ts): both call the store directly.
 */
import type { Sql } from 'postgres';
import { notFound } from '../../errors.js';
import { addModel, getAgent, setAgentStatus, type Agent, type AgentStatus, type ApprovedModel } from '../store/agents.js';

function found(agent: Agent | null, agentId: string): Agent {
  if (!agent) throw notFound(`no agent ${agentId}`);
  return agent;
}

export async function findAgent(sql: Sql, agentId: string): Promise<Agent> {
  return found(await getAgent(sql, agentId), agentId);
}

/** Approves another model version; approving one already approved changes nothing. */
export async function approveAgentModel(sql: Sql, agentId: string, model: ApprovedModel): Promise<Agent> {
  return found(await addModel(sql, agentId, model), agentId);
}

/** The per-agent kill switch: Active, Suspended or Deregistered, with an optional reason. */
export async function changeAgentStatus(sql: Sql, agentId: string, status: AgentStatus, reason: string | null): Promise<Agent> {
  return found(await setAgentStatus(sql, agentId, status, reason), agentId);
}
