/**
 * The request deadline: no request waits on the store longer than the store's own timeouts allow, and no
 * request is answered 200 after a client that gave up on it could already have retried it.
 *
 * A request that the server has received in full but not answered within `requestDeadlineMs` (the store's
 * connect timeout + statement timeout + a margin, 8 s by default) is answered 503 `service_unavailable` with
 * `Retry-After`, through the one error handler (so it is logged at warn under its request id). Its handler may
 * still finish afterwards, against a store that was only slow; its result, or its failure, is then dropped and
 * logged at warn under the same request id. Nothing is lost by that: a retried authorize with the same `client_order_id` is
 * answered with the original trace, and a retried bind of a trace that was bound meanwhile is 409
 * `trace_already_bound` naming the exchange_tx_id. The statement and connect timeouts make the deadline the
 * exception; it bounds what they cannot see (a store that stops answering mid-statement, the pool's queue
 * behind it).
 *
 * The clock starts when the request arrives; while its body is still arriving (a slow client), the deadline
 * waits for it: how long a client may take to send a request is the server's request bound
 * (HTTP_REQUEST_TIMEOUT_MS, answered 408; src/http/request-bounds.ts), which in turn stops once the body is in.
 * (Fastify's own `handlerTimeout` would do the rest, but in 5.12 it is cleared as soon as a request's body has
 * been read, so it never fires for a POST: fastify/fastify#6725.)
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../core/config.js';
import { TradesealError } from '../core/errors.js';

/** What the store's timeouts do not cover: the event loop, the pool's queue, the answer's serialisation. */
export const DEADLINE_MARGIN_MS = 1000;

/** Seconds a client should wait before it retries a 503 `service_unavailable` (the `Retry-After` header). */
export const RETRY_AFTER_SECONDS = 1;

export function requestDeadlineMs(config: Pick<Config, 'storeConnectTimeoutMs' | 'storeStatementTimeoutMs'>): number {
  return config.storeConnectTimeoutMs + config.storeStatementTimeoutMs + DEADLINE_MARGIN_MS;
}

/** Requests answered 503 by their deadline while their handler still ran. */
const expired = new WeakSet<FastifyRequest>();

/** Must run before any route is registered: it wraps each route's handler to drop what comes after the deadline. */
export function installRequestDeadline(app: FastifyInstance, deadlineMs: number): void {
  app.addHook('onRoute', (route) => {
    const handler = route.handler as (this: unknown, req: FastifyRequest, reply: FastifyReply) => unknown;
    route.handler = function deadlined(this: unknown, req: FastifyRequest, reply: FastifyReply): unknown {
      const out = handler.call(this, req, reply);
      if (!(out instanceof Promise)) return out;
      return out.then(
        (result: unknown) => {
          if (!expired.has(req)) return result;
          req.log.warn('the request finished after its deadline had answered 503; its result was dropped');
          return undefined;
        },
        (err: unknown) => {
          if (!expired.has(req)) throw err;
          req.log.warn({ err }, 'the request failed after its deadline had answered 503');
          return undefined;
        },
      );
    } as typeof route.handler;
  });
  app.addHook('onRequest', (req, reply, done) => {
    const expire = (): void => {
      if (reply.sent || reply.raw.headersSent) return;
      if (req.raw.complete === false) {
        timer = setTimeout(expire, deadlineMs).unref();
        return;
      }
      expired.add(req);
      void reply.send(
        new TradesealError(
          'service_unavailable',
          `the request was not answered within ${deadlineMs} ms: the store is slow or unavailable, and the request may still take effect; retry it (authorize with the same client_order_id answers the original result)`,
        ),
      );
    };
    let timer = setTimeout(expire, deadlineMs).unref();
    // The response's close: it was sent, or the client went away.
    reply.raw.once('close', () => clearTimeout(timer));
    done();
  });
}
