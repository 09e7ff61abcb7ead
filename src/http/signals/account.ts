/** `GET /v1/account` (any key): the account object of the key that asks (../../signals/ops/account.ts). */
import type { FastifyInstance } from 'fastify';
import { requireKey } from '../../signals/auth.js';
import type { SignalsContext } from '../../signals/context.js';
import { accountView } from '../../signals/ops/account.js';
import { accountBody } from './account-schemas.js';
import { errorResponses, signalsKeySecurity } from './schemas.js';

export function accountRoutes(app: FastifyInstance, ctx: SignalsContext): void {
  app.get(
    '/v1/account',
    {
      onRequest: requireKey(ctx, 'key'),
      schema: {
        operationId: 'getAccount',
        tags: ['signals accounts'],
        security: signalsKeySecurity,
        summary: "The account of the key: tier, features, today's requests and the daily limit",
        description:
          "`usage.today_requests` counts the requests of all the account's keys since 00:00 UTC, this one included; `usage.daily_limit` is null for a tier without a limit. `X-RateLimit-Remaining` says what is left of the rolling 24-hour window.",
        response: { 200: accountBody, ...errorResponses(401, 403, 429) },
      },
    },
    async (req) => accountView(ctx, req.signalsKey!),
  );
}
