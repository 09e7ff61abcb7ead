/**
 * Shadow mode (`/engine/admin/shadow-mode`, owner) and the regime broadcast: `GET /engine/regime` (any token)
 * shows the broadcast in force with its hash; `POST /engine/admin/regime` (owner) publishes a manual one.
 */
import type { FastifyInstance } from 'fastify';
import { TradesealError } from '../../errors.js';
import { actorOf, requireToken } from '../auth.js';
import type { EngineContext } from '../context.js';
import { publishRegime, type Probabilities } from '../store/regime.js';
import { setShadowMode } from '../store/shadow.js';
import type { Regime } from '../vocabulary.js';
import { bearer, errorResponses, probabilities, regime, regimeBroadcast, safeText, shadowMode } from './schemas.js';

export function shadowAndRegimeRoutes(app: FastifyInstance, ctx: EngineContext): void {
  const owner = requireToken(ctx, 'owner');
  const anyToken = requireToken(ctx, 'read');

  app.get('/engine/admin/shadow-mode', {
    onRequest: owner,
    schema: { tags: ['engine admin'], security: bearer, summary: 'Shadow mode state', response: { 200: shadowMode, ...errorResponses(401, 403) } },
  }, async () => {
    await ctx.state.refresh();
    return ctx.state.shadow;
  });

  app.post<{ Body: { enabled: boolean; reason?: string | null } }>('/engine/admin/shadow-mode', {
    onRequest: owner,
    schema: {
      tags: ['engine admin'], security: bearer,
      summary: 'Turn shadow mode on or off (every instance within a second)',
      body: {
        type: 'object', additionalProperties: false, required: ['enabled'],
        properties: { enabled: { type: 'boolean' }, reason: { type: ['string', 'null'], maxLength: 1000, pattern: safeText } },
      },
      response: { 200: shadowMode, ...errorResponses(401, 403, 422) },
    },
  }, async (req) => {
    const s = await setShadowMode(ctx.sql, req.body.enabled, req.body.reason ?? null, actorOf(req.principal));
    ctx.state.adoptShadow(s);
    return s;
  });

  app.get('/engine/regime', {
    onRequest: anyToken,
    schema: {
      tags: ['engine'], security: bearer,
      summary: 'The regime broadcast the engine enforces now, with its hash (a heartbeat\'s mta_ref)',
      response: { 200: regimeBroadcast, ...errorResponses(401, 404) },
    },
  }, async () => {
    const current = ctx.state.regime;
    if (!current) throw new TradesealError('regime_not_published', 'no regime is published yet; authorize fails closed until one is');
    return current;
  });

  app.post<{ Body: { regime: Regime; risk_score: number; reason: string; date?: string; probabilities?: Probabilities; model_version?: string } }>('/engine/admin/regime', {
    onRequest: owner,
    schema: {
      tags: ['engine admin'], security: bearer,
      summary: 'Publish a manual regime broadcast (an operator\'s emergency override of the pipeline)',
      body: {
        type: 'object', additionalProperties: false, required: ['regime', 'risk_score', 'reason'],
        properties: {
          regime, risk_score: { type: 'number', minimum: 0, maximum: 1 },
          reason: { type: 'string', minLength: 1, maxLength: 1000, pattern: safeText },
          // Postgres has no year 0000, which the `date` format admits.
          date: { type: 'string', format: 'date', pattern: '^(?!0000)' },
          probabilities,
          model_version: { type: 'string', minLength: 1, maxLength: 100, pattern: safeText },
        },
      },
      response: { 201: regimeBroadcast, ...errorResponses(401, 403, 422) },
    },
  }, async (req, reply) => {
    const b = await publishRegime(ctx.sql, {
      date: req.body.date ?? new Date(ctx.now()).toISOString().slice(0, 10),
      regime: req.body.regime,
      risk_score: req.body.risk_score,
      ...(req.body.probabilities ? { probabilities: req.body.probabilities } : {}),
      model_version: req.body.model_version ?? 'manual',
      source: 'manual',
      reason: req.body.reason,
      published_by: actorOf(req.principal),
    });
    ctx.state.adoptRegime(b);
    return reply.code(201).send(b);
  });
}
