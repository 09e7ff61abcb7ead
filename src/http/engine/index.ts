/** The compliance engine's routes (`/engine/...`): the service's HTTP layer. */
import fp from 'fastify-plugin';
import type { EngineContext } from '../../engine/context.js';
import { agentRoutes } from './agents.js';
import { auditLogRoutes } from './audit-log.js';
import { authorizeBindRoutes } from './authorize-bind.js';
import { dropCopyRoutes } from './dropcopy.js';
import { reconcileRoutes } from './reconcile.js';
import { erasureRoutes } from './erasure.js';
import { logRoutes } from './log.js';
import { policyRoutes } from './policy.js';
import { regimeRoutes } from './regime.js';
import { shadowRoutes } from './shadow-regime.js';
import { tokenRoutes } from './tokens.js';
import { traceRoutes } from './traces.js';

export interface EngineRoutesOptions {
  ctx: EngineContext;
}

/**
 * The compliance engine's routes (`/engine/...`) as a Fastify plugin over one shared `EngineContext`, not encapsulated
 * (fastify-plugin): its routes share the app's error handling, validation, request deadline and API document.
 */
export const engineRoutes = fp<EngineRoutesOptions>(
  async (app, { ctx }) => {
    authorizeBindRoutes(app, ctx);
    traceRoutes(app, ctx);
    shadowRoutes(app, ctx);
    regimeRoutes(app, ctx);
    policyRoutes(app, ctx);
    tokenRoutes(app, ctx);
    agentRoutes(app, ctx);
    erasureRoutes(app, ctx);
    auditLogRoutes(app, ctx);
    reconcileRoutes(app, ctx);
    dropCopyRoutes(app, ctx);
    logRoutes(app, ctx);
  },
  { name: 'tradeseal-engine', fastify: '5.x' },
);
