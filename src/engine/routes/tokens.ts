/** Token issue, revoke and list (owner): `/engine/admin/tokens`. */
import type { FastifyInstance } from 'fastify';
import { requireToken } from '../auth.js';
import type { EngineContext } from '../context.js';
import { issueTokenBody, tokenParams } from '../inputs.js';
import { issueEngineToken, revokeEngineToken } from '../ops/tokens.js';
import { listTokens, type IssueTokenInput } from '../store/tokens.js';
import { bearer, dateTime, errorResponses, tokenRecord, uuid } from './schemas.js';

export function tokenRoutes(app: FastifyInstance, ctx: EngineContext): void {
  const owner = requireToken(ctx, 'owner');

  app.post<{ Body: IssueTokenInput }>('/engine/admin/tokens', {
    onRequest: owner,
    schema: {
      tags: ['engine admin'], security: bearer,
      summary: 'Issue a token (shown once: save it now; only its hash is kept)',
      description: '`agent_ids` binds a client token to those agents; each must be registered, and owner and auditor tokens take none (422 naming the field).',
      body: issueTokenBody,
      response: {
        200: { type: 'object', properties: { ...tokenRecord.properties, token: { type: 'string' } } },
        ...errorResponses(401, 403, 422),
      },
    },
  }, async (req) => issueEngineToken(ctx.sql, req.body));

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
      params: tokenParams,
      response: { 200: { type: 'object', properties: { token_id: uuid, revoked_at: dateTime } }, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (req) => {
    try {
      return await revokeEngineToken(ctx.sql, req.params.token_id);
    } finally {
      ctx.tokens.clear();
    }
  });
}
