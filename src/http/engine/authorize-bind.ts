/** `POST /engine/authorize` and `POST /engine/bind-execution`: the engine's two core operations. */
import type { FastifyInstance } from 'fastify';
import { authorize, type AuthorizeRequest } from '../../engine/authorize.js';
import { requireToken } from '../../engine/auth.js';
import { bindExecution, type BindRequest } from '../../engine/bind.js';
import type { EngineContext } from '../../engine/context.js';
import { auditingRefusals } from '../../engine/audit/rejections.js';
import { assertCertificateMayActFor } from '../../engine/mtls.js';
import { isIrlUrl } from '../irl/paths.js';
import { authorizeRequestExample, authorizeResponseExample, bindRequestExample, bindResponseExample } from './examples.js';
import { authorizeBody, bindBody } from '../../engine/authorize-schemas.js';
import { bearer, dateTime, errorResponse, errorResponses, executionStatus, hex64, uuid } from '../../engine/schemas.js';

export function authorizeBindRoutes(app: FastifyInstance, ctx: EngineContext): void {
  const write = requireToken(ctx, 'write');

  app.post<{ Body: AuthorizeRequest }>(
    '/engine/authorize',
    {
      onRequest: write,
      schema: {
        tags: ['engine'],
        operationId: 'authorize',
        security: bearer,
        summary: "Check an order against policy and the regime, and seal the agent's reasoning",
        description:
          'Answers 200 only after the trace is committed. A 403 names the violated rule in `code` and the numbers in `detail`. ' +
          'The same agent and `client_order_id` with the same order fields answer the original response again (no new trace).',
        body: { ...authorizeBody, examples: [authorizeRequestExample] },
        response: {
          200: {
            type: 'object',
            description: 'Authorized and sealed (with shadow mode on, `shadow_blocked: true` marks an order the policy would have refused)',
            required: ['trace_id', 'reasoning_hash', 'authorized', 'shadow_blocked'],
            properties: { trace_id: uuid, reasoning_hash: hex64, authorized: { type: 'boolean' }, shadow_blocked: { type: 'boolean' } },
            examples: [authorizeResponseExample],
          },
          ...errorResponses(401, 409, 413, 415, 422),
          403: errorResponse(
            'Refused: a policy denial (`code` names the rule, `detail` the numbers), a heartbeat check, an agent or model that is not active or approved, ' +
              'a token that may not act for this agent (`agent_not_permitted`), an auditor token (`forbidden`), or, under mutual TLS, a client certificate whose common name is not this agent (`mtls_cn_mismatch`). No trace is stored.',
          ),
          409: errorResponse('The `client_order_id` was already used by this agent for a different order: `client_order_id_conflict`.'),
        },
      },
    },
    async (req) =>
      auditingRefusals(ctx.sql, req.principal, req.body, async () => {
        // Mutual TLS: the client certificate must be the order's agent (src/engine/mtls.ts), checked first.
        assertCertificateMayActFor(req.clientIdentity, req.body.agent_id);
        // An order of the IRL Engine's clients: its model approved by its hash alone, as the IRL Engine does.
        return authorize(ctx, req.principal, req.body, { modelByHash: isIrlUrl(req.originalUrl) });
      }),
  );

  app.post<{ Body: BindRequest }>(
    '/engine/bind-execution',
    {
      onRequest: write,
      schema: {
        tags: ['engine'],
        operationId: 'bindExecution',
        security: bearer,
        summary: 'Bind the exchange confirmation to a sealed trace',
        description:
          'The verification is not always `Matched`: the opposite side is `Mismatch`; another asset, or a quantity outside the tolerance, is `Divergent` with a `divergence_reason`.',
        body: { ...bindBody, examples: [bindRequestExample] },
        response: {
          200: {
            type: 'object',
            description: 'Bound: the final proof and the verification of the execution against the authorized intent',
            required: ['trace_id', 'final_proof', 'verification_status', 'execution_status', 'execution_time', 'divergence_reason'],
            properties: {
              trace_id: uuid,
              final_proof: hex64,
              verification_status: { type: 'string', enum: ['Matched', 'Divergent', 'Mismatch'] },
              execution_status: executionStatus,
              execution_time: dateTime,
              divergence_reason: { type: ['string', 'null'], description: 'set when verification_status is Divergent or Mismatch' },
            },
            examples: [bindResponseExample],
          },
          ...errorResponses(401, 403, 404, 413, 415, 422),
          404: errorResponse('No trace with this `trace_id`: `not_found`.'),
          409: errorResponse('The trace is already bound to an execution: `trace_already_bound`.'),
        },
      },
    },
    async (req) => {
      // Mutual TLS: only the trace's agent binds it (checked on the row the bind reads; no trace is bind's 404).
      const identity = req.clientIdentity;
      return bindExecution(ctx, req.principal, req.body, identity ? (agentId) => assertCertificateMayActFor(identity, agentId) : undefined, req.log);
    },
  );
}
