/** Shadow mode (`/engine/admin/shadow-mode`, owner): a dry run of the policy on every instance. */
import type { FastifyInstance } from 'fastify';
import { actorOf, requireToken } from '../../engine/auth.js';
import type { EngineContext } from '../../engine/context.js';
import { shadowModeBody } from '../../engine/inputs.js';
import { changeShadowMode, type ShadowModeChange } from '../../engine/ops/shadow-mode.js';
import { bearer, errorResponses, shadowMode } from '../../engine/schemas.js';

const shadowState = (description: string) => ({
  ...shadowMode,
  description,
  examples: [
    {
      enabled: true,
      reason: 'dry run of policy 1.1.0 before enforcement',
      changed_at: '2026-01-05T06:45:00.000Z',
      changed_by: 'token:9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b (ops desk)',
    },
  ],
});

export function shadowRoutes(app: FastifyInstance, ctx: EngineContext): void {
  const owner = requireToken(ctx, 'owner');

  app.get(
    '/engine/admin/shadow-mode',
    {
      onRequest: owner,
      schema: {
        tags: ['engine admin'],
        operationId: 'getShadowMode',
        security: bearer,
        summary: 'Shadow mode state',
        response: { 200: shadowState('Whether shadow mode is on, why, since when and who changed it'), ...errorResponses(401, 403) },
      },
    },
    async () => {
      await ctx.state.refresh();
      return ctx.state.shadow;
    },
  );

  app.post<{ Body: ShadowModeChange }>(
    '/engine/admin/shadow-mode',
    {
      onRequest: owner,
      schema: {
        tags: ['engine admin'],
        operationId: 'setShadowMode',
        security: bearer,
        summary: 'Turn shadow mode on or off (every instance within a second)',
        description: 'Turning it on requires a `reason` (422 without one); turning it off needs none.',
        body: { ...shadowModeBody, examples: [{ enabled: true, reason: 'dry run of policy 1.1.0 before enforcement' }] },
        response: { 200: shadowState('The new state'), ...errorResponses(401, 403, 413, 415, 422) },
      },
    },
    async (req) => {
      const s = await changeShadowMode(ctx.sql, req.body, actorOf(req.principal));
      ctx.state.adoptShadow(s);
      return s;
    },
  );
}
