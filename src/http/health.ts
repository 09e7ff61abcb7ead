/**
 * Health of a service: `{status, db_ok, cert_expiry_status}`; 503 with `db_ok: false` and `Retry-After` when the
 * store does not answer within a second (or a server still waits for it at start: ./store-start.ts), so a load
 * balancer takes the instance out of rotation and a client knows when to ask again.
 *
 * A service may add what its operator must act on (`details`): the engine adds the regime in force and the
 * age of its data. Stale or missing regime data leave the process healthy (200) but `degraded`, with a
 * warning that says how to refresh them: the engine then refuses every order, which restarting it would
 * not change.
 */
import type { FastifyInstance } from 'fastify';
import type { Sql } from 'postgres';
import type { CertExpiryStatus } from './cert-expiry.js';
import { RETRY_AFTER_SECONDS } from './deadline.js';
import { healthBody, publicRoute } from '../core/schemas.js';
import type { StoreReady } from './store-gate.js';

/** `cert_expiry_status`: see ./cert-expiry.ts; null when the server does not serve TLS. */
export type { CertExpiryStatus };

const PING_TIMEOUT_MS = 1000;

/** Whether the store answers `select 1` within the timeout. Never throws. */
export async function storeAnswers(sql: Sql, timeoutMs = PING_TIMEOUT_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([
      sql`select 1 as ok`.then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a service adds to its health: fields of the body, and warnings that make it `degraded`. */
export interface HealthDetails {
  fields: Record<string, unknown>;
  warnings: string[];
}

export interface HealthDeps {
  sql: Sql;
  /** False while a server waits for its store at start; default: ready. */
  storeReady?: StoreReady;
  certExpiryStatus?: () => CertExpiryStatus | null;
  details?: () => HealthDetails;
}

/** `tag` is the service's tag in the API document; the operation is `get<Tag>Health` (`getEngineHealth`). */
export function registerHealth(app: FastifyInstance, path: string, tag: string, deps: HealthDeps): void {
  app.get(
    path,
    {
      schema: {
        tags: [tag],
        operationId: `get${tag.charAt(0).toUpperCase()}${tag.slice(1)}Health`,
        security: publicRoute,
        summary: 'Liveness and store reachability (no token needed)',
        response: {
          200: { ...healthBody, description: '`ok`, or `degraded` with `warnings` saying what an operator should act on' },
          503: { ...healthBody, description: 'The store does not answer: take the instance out of rotation (`service_unavailable`)' },
        },
      },
    },
    async (_req, reply) => {
      const dbOk = (deps.storeReady?.() ?? true) && (await storeAnswers(deps.sql));
      const cert = deps.certExpiryStatus?.() ?? null;
      const details = deps.details?.();
      if (!dbOk) {
        return reply
          .code(503)
          .header('retry-after', String(RETRY_AFTER_SECONDS))
          .send({
            status: 'unavailable',
            db_ok: false,
            cert_expiry_status: cert,
            ...details?.fields,
            code: 'service_unavailable',
            detail: 'the store does not answer',
          });
      }
      if (!details) return { status: 'ok', db_ok: true, cert_expiry_status: cert };
      return { status: details.warnings.length > 0 ? 'degraded' : 'ok', db_ok: true, cert_expiry_status: cert, ...details.fields, warnings: details.warnings };
    },
  );
}
