/**
 * How long a client may take over each phase of its request, as Node's HTTP server options: a client that
 * sends slowly, or sends nothing, holds a connection (a file descriptor) for at most the bound of the phase it
 * is in, never for ever.
 *
 * - TLS handshake: `handshakeTimeout`, the headers' bound (HTTPS only; the headers' clock starts after it).
 * - Request line and headers: `headersTimeout` (HTTP_HEADERS_TIMEOUT_MS), from the request's first byte, or from
 *   the connection for its first request, so a connection that sends nothing is also closed then.
 * - The whole request, headers and body: `requestTimeout` (HTTP_REQUEST_TIMEOUT_MS). Node stops this clock
 *   when the body is complete, so it bounds receiving and never cuts a request its handler is processing:
 *   that is the request deadline's (src/http/deadline.ts). Fastify's `connectionTimeout` is not used: it is
 *   an idle timer on the socket (a body trickled a byte at a time never trips it) and it would also run while
 *   a handler waits on the store, cutting requests the deadline promises an answer to.
 * - Idle between two requests of a keep-alive connection: `keepAliveTimeout` (HTTP_KEEP_ALIVE_TIMEOUT_MS), which the
 *   server advertises in `Keep-Alive: timeout=…`; Node closes the connection 1 s after it, so a client honouring
 *   the header closes it first.
 *
 * Node checks the first two every `connectionsCheckingInterval` (30 s by default, which let a half-sent request
 * live 90 s); at `CONNECTIONS_CHECK_MS` a bound holds within half a second of its value. A request cut by them
 * is answered 408 `request_timeout` by the client error handler (src/http/client-error.ts), then closed.
 */
import type { Config } from '../core/config.js';

/** How often Node looks for requests past their headers or request bound. */
export const CONNECTIONS_CHECK_MS = 500;

type BoundSettings = Pick<Config, 'httpHeadersTimeoutMs' | 'httpRequestTimeoutMs' | 'httpKeepAliveTimeoutMs'>;

/** The options of Node's HTTP (and HTTPS) server for these bounds. */
export function serverTimeouts(config: BoundSettings): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  return {
    // Node refuses a headers bound above the request bound (the settings are checked for it; this keeps tests' configs valid too).
    headersTimeout: Math.min(config.httpHeadersTimeoutMs, config.httpRequestTimeoutMs),
    requestTimeout: config.httpRequestTimeoutMs,
    connectionsCheckingInterval: CONNECTIONS_CHECK_MS,
  };
}

/** The Fastify options that carry the bounds (Fastify sets `requestTimeout` and `keepAliveTimeout` on the server itself). */
export function requestBoundOptions(config: BoundSettings): { requestTimeout: number; keepAliveTimeout: number; http: ReturnType<typeof serverTimeouts> } {
  return { requestTimeout: config.httpRequestTimeoutMs, keepAliveTimeout: config.httpKeepAliveTimeoutMs, http: serverTimeouts(config) };
}

/** The extra options of an HTTPS server: the same bounds, and the handshake bounded as the headers are. */
export function httpsBoundOptions(config: BoundSettings): ReturnType<typeof serverTimeouts> & { handshakeTimeout: number } {
  const timeouts = serverTimeouts(config);
  return { ...timeouts, handshakeTimeout: timeouts.headersTimeout };
}
