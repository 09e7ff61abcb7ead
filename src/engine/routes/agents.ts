/** The agent registry (owner): register, add an approved model, the per-agent kill switch, list. */
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../errors.js';
import { requireToken } from '../auth.js';
import type { EngineContext } from '../context.js';
import { addModel, AGENT_STATUSES, getAgent, listAgents, registerAgent, setAgentStatus, type AgentStatus, type ApprovedModel, type RegisterAgentInput } from '../store/agents.js';
import { agent, bearer, errorResponses, model, positive, regime, safeText, uuid } from './schemas.js';

const agentParams = { type: 'object', required: ['agent_id'], properties: { agent_id: uuid } } as const;

export function agentRoutes(app: FastifyInstance, ctx: EngineContext): void {
  const owner = requireToken(ctx, 'owner');
  const tags = ['engine admin'];

  app.post<{ Body: RegisterAgentInput }>('/engine/admin/agents', {
    onRequest: owner,
    schema: {
      tags, security: bearer, summary: 'Register an agent with its approved models',
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'max_notional', 'models'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 200, pattern: safeText },
          max_notional: positive,
          models: { type: 'array', items: model, maxItems: 1000 },
          allowed_regimes: { type: 'array', items: regime, uniqueItems: true },
        },
      },
      response: { 201: agent, ...errorResponses(401, 403, 422) },
    },
  }, async (req, reply) => reply.code(201).send(await registerAgent(ctx.sql, req.body)));

  app.post<{ Params: { agent_id: string }; Body: ApprovedModel }>('/engine/admin/agents/:agent_id/models', {
    onRequest: owner,
    schema: {
      tags, security: bearer, summary: 'Approve another model version for an agent',
      params: agentParams, body: model,
      response: { 201: agent, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (req, reply) => {
    const updated = await addModel(ctx.sql, req.params.agent_id, req.body);
    if (!updated) throw notFound(`no agent ${req.params.agent_id}`);
    return reply.code(201).send(updated);
  });

  app.patch<{ Params: { agent_id: string }; Body: { status: AgentStatus; reason?: string | null } }>('/engine/admin/agents/:agent_id/status', {
    onRequest: owner,
    schema: {
      tags, security: bearer, summary: 'The per-agent kill switch: Active, Suspended or Deregistered',
      params: agentParams,
      body: {
        type: 'object', additionalProperties: false, required: ['status'],
        properties: { status: { type: 'string', enum: [...AGENT_STATUSES] }, reason: { type: ['string', 'null'], maxLength: 1000, pattern: safeText } },
      },
      response: { 200: agent, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (req) => {
    const updated = await setAgentStatus(ctx.sql, req.params.agent_id, req.body.status, req.body.reason ?? null);
    if (!updated) throw notFound(`no agent ${req.params.agent_id}`);
    return updated;
  });

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
  }, async (req) => {
    const found = await getAgent(ctx.sql, req.params.agent_id);
    if (!found) throw notFound(`no agent ${req.params.agent_id}`);
    return found;
  });
}
