/**
 * Health of a service: `{status, db_ok, cert_expiry_status}`; 503 with `db_ok: false` when the store does not
 * answer within a second, so a load balancer takes the instance out of rotation.
 */
import type { FastifyInstance } from 'fastify';
import type { Sql } from 'postgres';
import { healthBody } from './schemas.js';

export type CertExpiryStatus = 'ok' | 'expiring' | 'expired';

const PING_TIMEOUT_MS = 1000;

/** Whether the store answers `select 1` within the timeout. Never throws. */
export async function storeAnswers(sql: Sql, timeoutMs = PING_TIMEOUT_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([sql`select 1 as ok`.then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface HealthDeps {
  sql: Sql;
  certExpiryStatus?: () => CertExpiryStatus | null;
}

export function registerHealth(app: FastifyInstance, path: string, tag: string, deps: HealthDeps): void {
  app.get(path, {
    schema: {
      tags: [tag],
      summary: 'Liveness and store reachability (no token needed)',
      response: { 200: healthBody, 503: healthBody },
    },
  }, async (_req, reply) => {
    const dbOk = await storeAnswers(deps.sql);
    const cert = deps.certExpiryStatus?.() ?? null;
    if (!dbOk) {
      return reply.code(503).send({
        status: 'unavailable', db_ok: false, cert_expiry_status: cert,
        code: 'service_unavailable', detail: 'the store does not answer',
      });
    }
    return { status: 'ok', db_ok: true, cert_expiry_status: cert };
  });
}
