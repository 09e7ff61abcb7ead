/**
 * `POST /engine/admin/gdpr-erase/{agent_id}` (owner): erase an agent's personal data by destroying its data
 * key (src/engine/ops/erase.ts says what goes and what stays).
 */
import type { FastifyInstance } from 'fastify';
import { actorOf, requireToken } from '../../engine/auth.js';
import type { EngineContext } from '../../engine/context.js';
import { agentParams } from '../../engine/inputs.js';
import { eraseAgent } from '../../engine/ops/erase.js';
import { bearer, dateTime, errorResponse, errorResponses, uuid } from '../../engine/schemas.js';

export const erasureSchema = {
  type: 'object',
  required: ['agent_id', 'traces_affected', 'erased_at'],
  properties: {
    agent_id: uuid,
    traces_affected: { type: 'integer', minimum: 0, description: "the agent's traces this call marked erased (0 when the agent was erased before)" },
    erased_at: { ...dateTime, description: "when the agent was erased (the first erasure's time on a repeated one)" },
  },
} as const;

export const erasureExample = { agent_id: '6f1c2a9e-3b4d-4e8f-9a0b-1c2d3e4f5a6b', traces_affected: 1824, erased_at: '2026-03-02T10:15:00.000Z' };

export function erasureRoutes(app: FastifyInstance, ctx: EngineContext): void {
  app.post<{ Params: { agent_id: string } }>(
    '/engine/admin/gdpr-erase/:agent_id',
    {
      onRequest: requireToken(ctx, 'owner'),
      schema: {
        tags: ['engine admin'],
        operationId: 'eraseAgent',
        security: bearer,
        summary: "Erase an agent's personal data (crypto-shredding): destroy its data key",
        description:
          "Destroys the agent's data key and nulls its name and the regulatory blocks (with their salts) of its traces, in one transaction " +
          'with a `gdpr.erase` audit entry. Those fields then read as null with `erased: true`; every hash, proof and the audit chain still verify ' +
          "(a trace's regulatory commitment stands in for its erased block), and the agent can no longer authorize (403 `agent_not_active`). " +
          'Erasing an erased agent again changes nothing and answers 200 with its `erased_at` and `traces_affected: 0`. No body.',
        params: agentParams,
        response: {
          200: { ...erasureSchema, description: 'Erased', examples: [erasureExample] },
          ...errorResponses(400, 401, 403, 413, 415, 422),
          404: errorResponse('No agent with this `agent_id`: `not_found`.'),
          412: errorResponse('No key-management provider is configured (`KMS_PROVIDER`): `precondition_failed`.'),
        },
      },
    },
    async (req) => eraseAgent(ctx.sql, ctx.keys, req.params.agent_id, actorOf(req.principal)),
  );
}
