/**
 * The transparency log (any engine token, auditors included): signed tree heads, a trace's inclusion proofs,
 * and consistency proofs between two sizes. Everything a verifier needs besides the log's public key, which
 * `tradeseal engine log key` prints.
 */
import type { FastifyInstance } from 'fastify';
import { mayActFor, requireToken } from '../../engine/auth.js';
import type { EngineContext } from '../../engine/context.js';
import { traceParams } from '../../engine/inputs.js';
import { consistencyProof, traceProof, treeHead } from '../../engine/ops/log.js';
import { logKeyLoader } from '../../engine/store/log-key.js';
import { consistencyProofExample, traceLogProofExample, treeHeadExample } from './log-examples.js';
import { consistencyProofSchema, consistencyQuery, headQuery, proofQuery, signedTreeHeadSchema, traceLogProofSchema } from '../../core/log/schemas.js';
import { bearer, errorResponse, errorResponses } from '../../engine/schemas.js';

const beyondLog = errorResponse('Invalid query, or a size beyond the log: `validation_failed` naming the parameter.');

export function logRoutes(app: FastifyInstance, ctx: EngineContext): void {
  const read = requireToken(ctx, 'read');
  const key = logKeyLoader(ctx.sql, ctx.config);
  const tags = ['engine log'];

  app.get<{ Querystring: { tree_size?: number } }>(
    '/engine/log/head',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'getLogHead',
        security: bearer,
        summary: 'A signed tree head of the transparency log: the newest, or that of a past size',
        description:
          "The signature is Ed25519 over the 50 bytes of RFC 6962 §3.5's TreeHeadSignature: `0x00 ‖ 0x01 ‖ timestamp ‖ tree_size ‖ root_hash` " +
          '(both integers uint64 big-endian). A past size gets the head signed when its last leaf was sequenced.',
        querystring: headQuery,
        response: {
          200: { ...signedTreeHeadSchema, description: 'The signed tree head', examples: [treeHeadExample] },
          ...errorResponses(401),
          422: beyondLog,
        },
      },
    },
    async (req) => treeHead(ctx.sql, key, req.query.tree_size),
  );

  app.get<{ Params: { trace_id: string }; Querystring: { tree_size?: number } }>(
    '/engine/log/proof/:trace_id',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'getLogProof',
        security: bearer,
        summary: "The inclusion proofs of a trace's reasoning_hash and final_proof leaves",
        description:
          'Verify against the root of the head of the same `tree_size` (RFC 9162 §2.1.3.2). The leaf data are the 32 bytes of the hash; ' +
          'the final_proof leaf appears once the bound trace is sequenced.',
        params: traceParams,
        querystring: proofQuery,
        response: {
          200: { ...traceLogProofSchema, description: 'The proofs', examples: [traceLogProofExample] },
          ...errorResponses(400, 401),
          403: errorResponse('A client token bound to other agents: `agent_not_permitted`.'),
          404: errorResponse(
            'No trace with this `trace_id` (`not_found`), or a committed trace the sequencer has not reached yet (`not_yet_logged`: ask again within a second).',
          ),
          422: errorResponse("A malformed `trace_id`, or a `tree_size` beyond the log or too small to hold the trace's leaf: `validation_failed`."),
        },
      },
    },
    async (req) =>
      traceProof(ctx.sql, req.params.trace_id, {
        ...(req.query.tree_size !== undefined ? { treeSize: req.query.tree_size } : {}),
        mayRead: (agentId) => mayActFor(req.principal, agentId),
      }),
  );

  app.get<{ Querystring: { from: number; to?: number } }>(
    '/engine/log/consistency',
    {
      onRequest: read,
      schema: {
        tags,
        operationId: 'getLogConsistency',
        security: bearer,
        summary: 'The consistency proof between two sizes of the log: the older tree is a prefix of the newer',
        description: 'Verify with the root hashes of the heads of both sizes (RFC 9162 §2.1.4.2).',
        querystring: consistencyQuery,
        response: { 200: { ...consistencyProofSchema, description: 'The proof', examples: [consistencyProofExample] }, ...errorResponses(401), 422: beyondLog },
      },
    },
    async (req) => consistencyProof(ctx.sql, req.query.from, req.query.to),
  );
}
