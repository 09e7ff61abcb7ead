/**
 * The regime broadcast: `GET /engine/regime` (any token) shows the broadcast in force with its hash and how
 * old its data are; `POST /engine/admin/regime` (owner) publishes a manual one, an operator's override that
 * holds until it is released (`POST /engine/admin/regime/release`) or replaced by another manual broadcast.
 */
import type { FastifyInstance } from 'fastify';
import { TradesealError } from '../../core/errors.js';
import { actorOf, requireToken } from '../../engine/auth.js';
import type { EngineContext } from '../../engine/context.js';
import { freshnessOf } from '../../engine/policy/freshness.js';
import { manualBroadcastBody, releaseBody } from '../../engine/inputs.js';
import { publishOperatorBroadcast, releaseOperatorOverride, type ManualBroadcastBody } from '../../engine/ops/regime.js';
import { currentRegimeExample, publishRegimeRequestExample, regimeExample } from './examples.js';
import { bearer, errorResponse, errorResponses, regimeBroadcast, regimeFreshness } from '../../engine/schemas.js';

const broadcastWithFreshness = {
  ...regimeBroadcast,
  required: [...regimeBroadcast.required, 'freshness'],
  properties: { ...regimeBroadcast.properties, freshness: regimeFreshness },
} as const;
const ownerErrors = errorResponses(401, 403);
const bodyErrors = errorResponses(413, 415, 422);

export function regimeRoutes(app: FastifyInstance, ctx: EngineContext): void {
  const owner = requireToken(ctx, 'owner');
  const anyToken = requireToken(ctx, 'read');

  app.get(
    '/engine/regime',
    {
      onRequest: anyToken,
      schema: {
        tags: ['engine'],
        operationId: 'getRegime',
        security: bearer,
        summary: "The regime broadcast the engine enforces now, with its hash (a heartbeat's mta_ref) and the age of its data",
        description:
          "`freshness.stale` is true when the data of the broadcast (its `date`, complete at the end of that day UTC) are older than the policy's `regime_max_age_ms`; authorize then refuses every order (`regime_stale`).",
        response: {
          200: { ...broadcastWithFreshness, description: 'The broadcast in force', examples: [currentRegimeExample] },
          ...errorResponses(401),
          404: errorResponse('No regime is published yet: `regime_not_published` (authorize fails closed until one is).'),
        },
      },
    },
    async () => {
      const current = ctx.state.regime;
      if (!current) throw new TradesealError('regime_not_published', 'no regime is published yet; authorize fails closed until one is');
      return { ...current, freshness: freshnessOf(current.date, ctx.policy.document.regime_max_age_ms, ctx.now()) };
    },
  );

  app.post<{ Body: ManualBroadcastBody }>(
    '/engine/admin/regime',
    {
      onRequest: owner,
      schema: {
        tags: ['engine admin'],
        operationId: 'publishRegime',
        security: bearer,
        summary: "Publish a manual regime broadcast: an operator's override, in force until released or replaced by another",
        body: { ...manualBroadcastBody, examples: [publishRegimeRequestExample] },
        response: { 201: { ...regimeBroadcast, description: 'Published and in force', examples: [regimeExample] }, ...ownerErrors, ...bodyErrors },
      },
    },
    async (req, reply) => {
      const b = await publishOperatorBroadcast(ctx.sql, req.body, actorOf(req.principal), ctx.now());
      ctx.state.adoptRegime(b);
      return reply.code(201).send(b);
    },
  );

  app.post<{ Body: { reason?: string } | undefined }>(
    '/engine/admin/regime/release',
    {
      onRequest: owner,
      schema: {
        tags: ['engine admin'],
        operationId: 'releaseRegimeOverride',
        security: bearer,
        summary: "Release the operator's override: the newest published day's regime is in force again",
        body: releaseBody,
        response: {
          200: {
            type: 'object',
            description: 'The override released, and the broadcast in force now',
            required: ['released', 'broadcast'],
            properties: { released: regimeBroadcast, broadcast: regimeBroadcast },
          },
          ...ownerErrors,
          ...bodyErrors,
          404: errorResponse('No published day to return to: `regime_not_published`.'),
          409: errorResponse('No manual broadcast is in force, nothing to release: `regime_override_not_in_force`.'),
        },
      },
    },
    async (req) => {
      const r = await releaseOperatorOverride(ctx.sql, actorOf(req.principal), req.body?.reason ?? null);
      ctx.state.adoptRegime(r.broadcast);
      return r;
    },
  );
}
