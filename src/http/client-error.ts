/**
 * Requests Node's HTTP parser refuses before Fastify sees them (an over-long URL or header block, a request
 * that never arrives in full, bytes that are not HTTP) are answered in the one error body too, with a
 * request id header, instead of Fastify's own `{error, message, statusCode}` shape. The connection is then closed:
 * after a parse error nothing more on it can be trusted.
 *
 * A request past its headers or request bound (src/http/request-bounds.ts) comes here too, as
 * `ERR_HTTP_REQUEST_TIMEOUT`: it is answered 408 `request_timeout` unless its answer has already been sent.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ERROR_CODES, type ErrorCode } from '../core/errors.js';

const DETAILS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: [
    'headers_too_large',
    'the request line and headers are larger than 16 KiB: shorten the URL (send filters in a body where the route takes one) or the headers',
  ],
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'the request was not received in full in time'],
};

/** Sockets whose current request was answered before its body had arrived in full. */
const answeredEarly = new WeakSet<Socket>();

/**
 * Remembers requests answered before their body arrived in full: Node then reads and drops the rest of the body,
 * and a client that never sends it is cut by the request bound, when nothing more may be written to it (once
 * answered, a request no longer has a response on the socket to tell so).
 */
export function trackEarlyAnswers(app: FastifyInstance): void {
  app.addHook('onRequest', (req, _reply, done) => {
    answeredEarly.delete(req.raw.socket);
    done();
  });
  app.addHook('onResponse', (req, _reply, done) => {
    if (!req.raw.complete) answeredEarly.add(req.raw.socket);
    done();
  });
}

export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, detail] = DETAILS[err.code ?? ''] ?? ['bad_request', 'the request is not valid HTTP'];
  const status = ERROR_CODES[code].status;
  const requestId = randomUUID();
  const body = JSON.stringify({ code, detail });
  // A request answered before its body arrived in full (a 401 before the body is read) and cut by the request
  // bound afterwards: its answer is on the wire already, and a second one would corrupt the stream.
  const inFlight = (socket as Socket & { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent && !answeredEarly.has(socket)) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
