/** The compliance engine's routes (`/engine/...`), over one shared `EngineContext`. */
import type { FastifyInstance } from 'fastify';
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

export function engineRoutes(app: FastifyInstance, ctx: EngineContext): void {
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
}
