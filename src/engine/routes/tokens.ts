/** Token issue, revoke and list (owner): `/engine/admin/tokens`. */
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../errors.js';
import { requireToken } from '../auth.js';
import type { EngineContext } from '../context.js';
import { issueToken, listTokens, revokeToken, type IssueTokenInput } from '../store/tokens.js';
import { bearer, dateTime, errorResponses, safeText, tokenRecord, uuid } from './schemas.js';

const issueBody = {
  type: 'object',
  additionalProperties: false,
  required: ['client_name'],
  properties: {
    client_name: { type: 'string', minLength: 1, maxLength: 200, pattern: safeText },
    role: { type: 'string', enum: ['client', 'owner', 'auditor'], default: 'client' },
    agent_ids: { type: 'array', items: uuid, minItems: 1, maxItems: 10000, uniqueItems: true },
    ttl_days: { type: 'number', exclusiveMinimum: 0, maximum: 3650 },
  },
} as const;

export function tokenRoutes(app: FastifyInstance, ctx: EngineContext): void {
  const owner = requireToken(ctx, 'owner');

  app.post<{ Body: IssueTokenInput }>('/engine/admin/tokens', {
    onRequest: owner,
    schema: {
      tags: ['engine admin'], security: bearer,
      summary: 'Issue a token (shown once: save it now; only its hash is kept)',
      body: issueBody,
      response: {
        200: { type: 'object', properties: { ...tokenRecord.properties, token: { type: 'string' } } },
        ...errorResponses(401, 403, 422),
      },
    },
  }, async (req) => issueToken(ctx.sql, req.body));

  app.get('/engine/admin/tokens', {
    onRequest: owner,
    schema: {
      tags: ['engine admin'], security: bearer, summary: 'List tokens (never their secrets)',
      response: { 200: { type: 'object', properties: { count: { type: 'integer' }, tokens: { type: 'array', items: tokenRecord } } }, ...errorResponses(401, 403) },
    },
  }, async () => {
    const tokens = await listTokens(ctx.sql);
    return { count: tokens.length, tokens };
  });

  app.delete<{ Params: { token_id: string } }>('/engine/admin/tokens/:token_id', {
    onRequest: owner,
    schema: {
      tags: ['engine admin'], security: bearer, summary: 'Revoke a token at once',
      params: { type: 'object', required: ['token_id'], properties: { token_id: uuid } },
      response: { 200: { type: 'object', properties: { token_id: uuid, revoked_at: dateTime } }, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (req) => {
    const revoked = await revokeToken(ctx.sql, req.params.token_id);
    ctx.tokens.clear();
    if (!revoked) throw notFound(`no token ${req.params.token_id}`);
    return revoked;
  });
}
