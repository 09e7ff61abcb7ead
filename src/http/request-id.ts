/**
 * Request ids: a caller's `X-Request-Id` is kept when it is a sane token (so a trading agent can correlate
 * its own logs with ours), otherwise a fresh UUID is minted. Every response echoes it back.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, RawRequestDefaultExpression } from 'fastify';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function genRequestId(req: RawRequestDefaultExpression): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
}

export function installRequestIdHeader(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => {
    void reply.header('x-request-id', req.id);
  });
}
