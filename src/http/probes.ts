/**
 * Probes for an orchestrator (Kubernetes' liveness and readiness, a load balancer's check):
 * - `GET /livez`: the process is up and its event loop answers. Never touches the store, so an outage of
 *   the database does not get every instance restarted (a restart would not bring the store back).
 * - `GET /readyz`: the instance can serve: the store answers within a second. 503 otherwise, so traffic
 *   goes to instances that can answer; the instance comes back by itself when the store does.
 * The services' own health routes (`/engine/health`, `/v1/health`) say more, for people.
 */
import type { FastifyInstance } from 'fastify';
import type { Sql } from 'postgres';
import { storeAnswers } from './health.js';
import { publicRoute } from './schemas.js';

const probeBody = {
  type: 'object', required: ['status'], additionalProperties: false,
  properties: { status: { type: 'string', enum: ['ok', 'unavailable'] }, code: { type: 'string' }, detail: { type: 'string' } },
} as const;

export function registerProbes(app: FastifyInstance, sql: Sql): void {
  app.get('/livez', {
    schema: {
      tags: ['operations'], operationId: 'getLiveness', security: publicRoute, summary: 'Liveness: the process answers (the store is not asked)',
      response: { 200: { ...probeBody, description: 'The process is up' } },
    },
  }, async () => ({ status: 'ok' }));
  app.get('/readyz', {
    schema: {
      tags: ['operations'], operationId: 'getReadiness', security: publicRoute, summary: 'Readiness: the store answers within a second',
      response: {
        200: { ...probeBody, description: 'Ready to serve' },
        503: { ...probeBody, description: 'The store does not answer (`service_unavailable`): send traffic elsewhere until it does' },
      },
    },
  }, async (_req, reply) => {
    if (await storeAnswers(sql)) return { status: 'ok' };
    return reply.code(503).header('retry-after', '1').send({ status: 'unavailable', code: 'service_unavailable', detail: 'the store does not answer' });
  });
}
