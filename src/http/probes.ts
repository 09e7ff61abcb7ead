/**
 * Probes for an orchestrator (Kubernetes' liveness and readiness, a load balancer's check):
 * - `GET /livez`: the process is up and its event loop answers. Never touches the store, so an outage of
 *   the database does not get every instance restarted (a restart would not bring the store back).
 * - `GET /readyz`: the instance can serve: the store is prepared (a server that waits for its store at start
 *   is not ready until then: ./store-start.ts) and answers within a second. 503 with `Retry-After` otherwise,
 *   so traffic goes to instances that can answer; the instance comes back by itself when the store does.
 * The services' own health routes (`/engine/health`, `/v1/health`) say more, for people.
 */
import type { FastifyInstance } from 'fastify';
import type { Sql } from 'postgres';
import { RETRY_AFTER_SECONDS } from './deadline.js';
import { storeAnswers } from './health.js';
import { publicRoute } from '../core/schemas.js';
import type { StoreReady } from './store-gate.js';

const probeBody = {
  type: 'object',
  required: ['status'],
  additionalProperties: false,
  properties: { status: { type: 'string', enum: ['ok', 'unavailable'] }, code: { type: 'string' }, detail: { type: 'string' } },
} as const;

export function registerProbes(app: FastifyInstance, sql: Sql, storeReady: StoreReady = () => true): void {
  app.get(
    '/livez',
    {
      schema: {
        tags: ['operations'],
        operationId: 'getLiveness',
        security: publicRoute,
        summary: 'Liveness: the process answers (the store is not asked)',
        response: { 200: { ...probeBody, description: 'The process is up' } },
      },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        operationId: 'getReadiness',
        security: publicRoute,
        summary: 'Readiness: the store answers within a second',
        response: {
          200: { ...probeBody, description: 'Ready to serve' },
          503: { ...probeBody, description: 'The store does not answer (`service_unavailable`): send traffic elsewhere until it does' },
        },
      },
    },
    async (_req, reply) => {
      if (!storeReady()) {
        return reply
          .code(503)
          .header('retry-after', String(RETRY_AFTER_SECONDS))
          .send({ status: 'unavailable', code: 'service_unavailable', detail: 'the server is waiting for its store, which did not answer at start' });
      }
      if (await storeAnswers(sql)) return { status: 'ok' };
      return reply
        .code(503)
        .header('retry-after', String(RETRY_AFTER_SECONDS))
        .send({ status: 'unavailable', code: 'service_unavailable', detail: 'the store does not answer' });
    },
  );
}
