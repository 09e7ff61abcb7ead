/** The regime signal service's routes (`/v1/...`), over one shared `SignalsContext`. */
import type { FastifyInstance } from 'fastify';
import type { SignalsContext } from '../../signals/context.js';
import { accountRoutes } from './account.js';
import { authRoutes } from './auth.js';
import { webhookRoutes } from './webhook.js';
import { dataRoutes } from './data.js';
import { publicRoutes } from './public.js';
import { quantRoutes } from './quant.js';
import { exportRoutes } from './export.js';
import { engineTierRoutes } from './engine.js';
import { adminRoutes } from './admin.js';
import { trackLogRoutes } from './track-log.js';

export function signalsRoutes(app: FastifyInstance, ctx: SignalsContext): void {
  authRoutes(app, ctx);
  accountRoutes(app, ctx);
  dataRoutes(app, ctx);
  publicRoutes(app, ctx);
  quantRoutes(app, ctx);
  exportRoutes(app, ctx);
  webhookRoutes(app, ctx);
  engineTierRoutes(app, ctx);
  adminRoutes(app, ctx);
  trackLogRoutes(app, ctx);
}
