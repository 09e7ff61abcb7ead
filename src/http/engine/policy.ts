/**
 * `GET /engine/policy` (any token): the policy the engine enforces, as it read POLICY_PATH when it started: its
 * id, version, the hash every trace sealed under it carries (`policy.hash`), and the whole document. What
 * `tradeseal engine policy show` prints, for a remote engine (`--url`).
 */
import type { FastifyInstance } from 'fastify';
import { requireToken } from '../../engine/auth.js';
import type { EngineContext } from '../../engine/context.js';
import { bearer, errorResponses, hex64 } from '../../engine/schemas.js';

export const policyInForce = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'version', 'hash', 'document'],
  properties: {
    id: { type: 'string' },
    version: { type: 'string' },
    hash: { ...hex64, description: 'SHA-256 of the JCS of the document: the policy.hash of the traces sealed under it' },
    document: { type: 'object', additionalProperties: true, description: 'The policy document as the engine read it (the schema of data/policy/*.json)' },
  },
} as const;

export function policyRoutes(app: FastifyInstance, ctx: EngineContext): void {
  app.get(
    '/engine/policy',
    {
      onRequest: requireToken(ctx, 'read'),
      schema: {
        tags: ['engine'],
        operationId: 'getPolicy',
        security: bearer,
        summary: 'The policy the engine enforces (read from POLICY_PATH at its start), with the hash its traces carry',
        response: { 200: policyInForce, ...errorResponses(401) },
      },
    },
    async () => ({ id: ctx.policy.document.id, version: ctx.policy.document.version, hash: ctx.policy.hash, document: ctx.policy.document }),
  );
}
