/** The regime signal service's routes (`/v1/...`): the service's HTTP layer. */
import fp from 'fastify-plugin';
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

export interface SignalsRoutesOptions {
  ctx: SignalsContext;
}

/**
 * The regime signal service's routes (`/v1/...`) as a Fastify plugin over one shared `SignalsContext`, not encapsulated
 * (fastify-plugin): its routes share the app's error handling, validation, request deadline and API document.
 */
export const signalsRoutes = fp<SignalsRoutesOptions>(
  async (app, { ctx }) => {
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
  },
  { name: 'tradeseal-signals', fastify: '5.x' },
);
