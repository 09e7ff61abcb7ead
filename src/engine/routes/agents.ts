/** The agent registry (owner): register, add an approved model, the per-agent kill switch, list. */
import type { FastifyInstance } from 'fastify';
import { requireToken } from '../auth.js';
import type { EngineContext } from '../context.js';
import { agentParams, agentStatusBody, approvedModelBody, registerAgentBody } from '../inputs.js';
import { approveAgentModel, changeAgentStatus, findAgent } from '../ops/agents.js';
import { listAgents, registerAgent, type AgentStatus, type ApprovedModel, type RegisterAgentInput } from '../store/agents.js';
import { agent, bearer, errorResponses } from './schemas.js';

export function agentRoutes(app: FastifyInstance, ctx: EngineContext): void {
  const owner = requireToken(ctx, 'owner');
  const tags = ['engine admin'];

  app.post<{ Body: RegisterAgentInput }>('/engine/admin/agents', {
    onRequest: owner,
    schema: {
      tags, security: bearer, summary: 'Register an agent with its approved models',
      body: registerAgentBody,
      response: { 201: agent, ...errorResponses(401, 403, 422) },
    },
  }, async (req, reply) => reply.code(201).send(await registerAgent(ctx.sql, req.body)));

  app.post<{ Params: { agent_id: string }; Body: ApprovedModel }>('/engine/admin/agents/:agent_id/models', {
    onRequest: owner,
    schema: {
      tags, security: bearer, summary: 'Approve another model version for an agent',
      params: agentParams, body: approvedModelBody,
      response: { 201: agent, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (req, reply) => reply.code(201).send(await approveAgentModel(ctx.sql, req.params.agent_id, req.body)));

  app.patch<{ Params: { agent_id: string }; Body: { status: AgentStatus; reason?: string | null } }>('/engine/admin/agents/:agent_id/status', {
    onRequest: owner,
    schema: {
      tags, security: bearer, summary: 'The per-agent kill switch: Active, Suspended or Deregistered',
      params: agentParams,
      body: agentStatusBody,
      response: { 200: agent, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (req) => changeAgentStatus(ctx.sql, req.params.agent_id, req.body.status, req.body.reason ?? null));

  app.get('/engine/admin/agents', {
    onRequest: owner,
    schema: {
      tags, security: bearer, summary: 'List agents',
      response: { 200: { type: 'object', properties: { count: { type: 'integer' }, agents: { type: 'array', items: agent } } }, ...errorResponses(401, 403) },
    },
  }, async () => {
    const agents = await listAgents(ctx.sql);
    return { count: agents.length, agents };
  });

  app.get<{ Params: { agent_id: string } }>('/engine/admin/agents/:agent_id', {
    onRequest: owner,
    schema: { tags, security: bearer, summary: 'One agent', params: agentParams, response: { 200: agent, ...errorResponses(401, 403, 404, 422) } },
  }, async (req) => findAgent(ctx.sql, req.params.agent_id));
}
