/**
 * The gate in front of the store's routes while a server waits for its store at start (./store-start.ts): a
 * request to any route that needs the store is answered 503 `service_unavailable` with `Retry-After`, through
 * the one error handler, until the store is prepared (migrations applied). Without it, a store that came back
 * before its migrations ran would answer "no such table" as a 500.
 *
 * Open meanwhile: the routes that never need the store (the liveness probe, the metrics, the API document)
 * and those that say whether the store is ready, which answer 503 with `Retry-After` themselves (/readyz and
 * the services' health, ./probes.ts and ./health.ts). A path that matches no route is still a 404.
 */
import type { FastifyInstance } from 'fastify';
import { TradesealError } from '../core/errors.js';

/** Whether the store is prepared: the server serves the store's routes. */
export type StoreReady = () => boolean;

const OPEN_ROUTES = new Set(['/livez', '/readyz', '/metrics', '/openapi.json', '/engine/health', '/v1/health']);

const isOpen = (route: string): boolean => OPEN_ROUTES.has(route) || route === '/docs' || route.startsWith('/docs/');

export function installStoreGate(app: FastifyInstance, ready: StoreReady): void {
  app.addHook('onRequest', (req, _reply, done) => {
    const route = req.routeOptions.url;
    if (ready() || req.is404 || route === undefined || isOpen(route)) return done();
    done(new TradesealError('service_unavailable', 'the server is waiting for its store, which did not answer at start; retry in a moment'));
  });
}
