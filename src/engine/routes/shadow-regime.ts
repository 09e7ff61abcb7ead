/** Shadow mode (`/engine/admin/shadow-mode`, owner): a dry run of the policy on every instance. */
import type { FastifyInstance } from 'fastify';
import { actorOf, requireToken } from '../auth.js';
import type { EngineContext } from '../context.js';
import { shadowModeBody } from '../inputs.js';
import { changeShadowMode, type ShadowModeChange } from '../ops/shadow-mode.js';
import { bearer, errorResponses, shadowMode } from './schemas.js';

export function shadowRoutes(app: FastifyInstance, ctx: EngineContext): void {
  const owner = requireToken(ctx, 'owner');

  app.get('/engine/admin/shadow-mode', {
    onRequest: owner,
    schema: { tags: ['engine admin'], security: bearer, summary: 'Shadow mode state', response: { 200: shadowMode, ...errorResponses(401, 403) } },
  }, async () => {
    await ctx.state.refresh();
    return ctx.state.shadow;
  });

  app.post<{ Body: ShadowModeChange }>('/engine/admin/shadow-mode', {
    onRequest: owner,
    schema: {
      tags: ['engine admin'], security: bearer,
      summary: 'Turn shadow mode on or off (every instance within a second)',
      description: 'Turning it on requires a `reason` (422 without one); turning it off needs none.',
      body: shadowModeBody,
      response: { 200: shadowMode, ...errorResponses(401, 403, 422) },
    },
  }, async (req) => {
    const s = await changeShadowMode(ctx.sql, req.body, actorOf(req.principal));
    ctx.state.adoptShadow(s);
    return s;
  });
}
