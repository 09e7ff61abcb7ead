/** The agent registry (owner): register, add an approved model, the per-agent kill switch, list. */
import type { FastifyInstance } from 'fastify';
import { actorOf, requireToken } from '../../engine/auth.js';
import type { EngineContext } from '../../engine/context.js';
import { agentParams, agentStatusBody, approvedModelBody, registerAgentBody } from '../../engine/inputs.js';
import { agentView, agentViews, sealedNameFor } from '../../engine/ops/agent-details.js';
import { approveAgentModel, changeAgentStatus, findAgent, registerEngineAgent } from '../../engine/ops/agents.js';
import { listAgents, type Agent, type AgentStatus, type ApprovedModel, type RegisterAgentInput } from '../../engine/store/agents.js';
import { agentExample, registerAgentRequestExample } from './examples.js';
import { agent, bearer, errorResponse, errorResponses } from '../../engine/schemas.js';

const agentResponse = (description: string) => ({ ...agent, description, examples: [agentExample] });
const noAgent = errorResponse('No agent with this `agent_id`: `not_found`.');
/** Every route here needs an owner token: 401 without a valid one, 403 with another role. */
const ownerErrors = errorResponses(401, 403);
const bodyErrors = errorResponses(413, 415, 422);

export function agentRoutes(app: FastifyInstance, ctx: EngineContext): void {
  const owner = requireToken(ctx, 'owner');
  const tags = ['engine admin'];
  /** The name decrypted (null once erased), with `erased`. */
  const view = (a: Agent) => agentView(ctx.sql, ctx.keys, a);

  app.post<{ Body: RegisterAgentInput }>(
    '/engine/admin/agents',
    {
      onRequest: owner,
      schema: {
        tags,
        operationId: 'registerAgent',
        security: bearer,
        summary: 'Register an agent with its approved models',
        body: { ...registerAgentBody, examples: [registerAgentRequestExample] },
        response: { 201: agentResponse('Registered, `Active`'), ...ownerErrors, ...bodyErrors },
      },
    },
    async (req, reply) => {
      const sealedName = await sealedNameFor(ctx.sql, ctx.keys, req.body.name);
      return reply.code(201).send(await view(await registerEngineAgent(ctx.sql, req.body, actorOf(req.principal), sealedName)));
    },
  );

  app.post<{ Params: { agent_id: string }; Body: ApprovedModel }>(
    '/engine/admin/agents/:agent_id/models',
    {
      onRequest: owner,
      schema: {
        tags,
        operationId: 'approveAgentModel',
        security: bearer,
        summary: 'Approve another model version for an agent',
        description: 'Approving a version that is already approved changes nothing.',
        params: agentParams,
        body: { ...approvedModelBody, examples: [registerAgentRequestExample.models[0]] },
        response: { 201: agentResponse('The agent with its approved models'), ...ownerErrors, ...errorResponses(400), 404: noAgent, ...bodyErrors },
      },
    },
    async (req, reply) => reply.code(201).send(await view(await approveAgentModel(ctx.sql, req.params.agent_id, req.body, actorOf(req.principal)))),
  );

  app.patch<{ Params: { agent_id: string }; Body: { status: AgentStatus; reason?: string | null } }>(
    '/engine/admin/agents/:agent_id/status',
    {
      onRequest: owner,
      schema: {
        tags,
        operationId: 'setAgentStatus',
        security: bearer,
        summary: 'The per-agent kill switch: Active, Suspended or Deregistered',
        params: agentParams,
        body: { ...agentStatusBody, examples: [{ status: 'Suspended', reason: 'drawdown limit hit; under review' }] },
        response: { 200: agentResponse('The agent with its new status'), ...ownerErrors, ...errorResponses(400), 404: noAgent, ...bodyErrors },
      },
    },
    async (req) => view(await changeAgentStatus(ctx.sql, req.params.agent_id, req.body.status, req.body.reason ?? null, actorOf(req.principal))),
  );

  app.get(
    '/engine/admin/agents',
    {
      onRequest: owner,
      schema: {
        tags,
        operationId: 'listAgents',
        security: bearer,
        summary: 'List agents',
        response: {
          200: {
            type: 'object',
            description: 'Every registered agent, oldest first',
            required: ['count', 'agents'],
            properties: { count: { type: 'integer' }, agents: { type: 'array', items: agent } },
            examples: [{ count: 1, agents: [agentExample] }],
          },
          ...ownerErrors,
        },
      },
    },
    async () => {
      const agents = await agentViews(ctx.sql, ctx.keys, await listAgents(ctx.sql));
      return { count: agents.length, agents };
    },
  );

  app.get<{ Params: { agent_id: string } }>(
    '/engine/admin/agents/:agent_id',
    {
      onRequest: owner,
      schema: {
        tags,
        operationId: 'getAgent',
        security: bearer,
        summary: 'One agent',
        params: agentParams,
        response: { 200: agentResponse('The agent'), ...ownerErrors, 404: noAgent, ...errorResponses(400, 422) },
      },
    },
    async (req) => view(await findAgent(ctx.sql, req.params.agent_id)),
  );
}
