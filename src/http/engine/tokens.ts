/** Token issue, revoke and list (owner): `/engine/admin/tokens`. */
import type { FastifyInstance } from 'fastify';
import { actorOf, requireToken } from '../../engine/auth.js';
import type { EngineContext } from '../../engine/context.js';
import { issueTokenBody, tokenParams } from '../../engine/inputs.js';
import { issueEngineToken, revokeEngineToken } from '../../engine/ops/tokens.js';
import { listTokens, type IssueTokenInput } from '../../engine/store/tokens.js';
import { issuedTokenExample, issueTokenRequestExample, revokedTokenExample, tokenListExample } from './examples.js';
import { bearer, dateTime, errorResponse, errorResponses, tokenRecord, uuid } from '../../engine/schemas.js';

export function tokenRoutes(app: FastifyInstance, ctx: EngineContext): void {
  const owner = requireToken(ctx, 'owner');

  app.post<{ Body: IssueTokenInput }>(
    '/engine/admin/tokens',
    {
      onRequest: owner,
      schema: {
        tags: ['engine admin'],
        operationId: 'issueToken',
        security: bearer,
        summary: 'Issue a token (shown once: save it now; only its hash is kept)',
        description:
          '`agent_ids` binds a client token to those agents; each must be registered, and owner and auditor tokens take none (422 naming the field).',
        body: { ...issueTokenBody, examples: [issueTokenRequestExample] },
        response: {
          200: {
            type: 'object',
            description: 'The token, with its secret `token` shown this once',
            required: [...tokenRecord.required, 'token'],
            properties: {
              ...tokenRecord.properties,
              token: { type: 'string', pattern: '^tse_', description: 'the secret: send it as `Authorization: Bearer <token>`' },
            },
            examples: [issuedTokenExample],
          },
          ...errorResponses(401, 403, 413, 415, 422),
        },
      },
    },
    async (req) => issueEngineToken(ctx.sql, req.body, actorOf(req.principal)),
  );

  app.get(
    '/engine/admin/tokens',
    {
      onRequest: owner,
      schema: {
        tags: ['engine admin'],
        operationId: 'listTokens',
        security: bearer,
        summary: 'List tokens (never their secrets)',
        response: {
          200: {
            type: 'object',
            description: 'Every token, revoked and expired ones included',
            required: ['count', 'tokens'],
            properties: { count: { type: 'integer' }, tokens: { type: 'array', items: tokenRecord } },
            examples: [tokenListExample],
          },
          ...errorResponses(401, 403),
        },
      },
    },
    async () => {
      const tokens = await listTokens(ctx.sql);
      return { count: tokens.length, tokens };
    },
  );

  app.delete<{ Params: { token_id: string } }>(
    '/engine/admin/tokens/:token_id',
    {
      onRequest: owner,
      schema: {
        tags: ['engine admin'],
        operationId: 'revokeToken',
        security: bearer,
        summary: 'Revoke a token at once',
        description: 'Revoking a revoked token keeps its first revocation time.',
        params: tokenParams,
        response: {
          200: {
            type: 'object',
            description: 'Revoked',
            required: ['token_id', 'revoked_at'],
            properties: { token_id: uuid, revoked_at: dateTime },
            examples: [revokedTokenExample],
          },
          ...errorResponses(400, 401, 403, 422),
          404: errorResponse('No token with this `token_id`: `not_found`.'),
        },
      },
    },
    async (req) => {
      const revoked = await revokeEngineToken(ctx.sql, req.params.token_id, actorOf(req.principal)).catch((err: unknown) => {
        // A store fault may hide a revocation that committed: this process drops its cache either way.
        ctx.tokens.clear();
        throw err;
      });
      // Refused by every worker of this server before this answer (other servers: src/credentials/notify.ts).
      await ctx.changes.held({ kind: 'engine_token', token_id: revoked.token_id });
      return revoked;
    },
  );
}
