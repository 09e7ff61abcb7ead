/**
 * Requests Node's HTTP parser refuses before Fastify sees them (an over-long URL or header block, a request
 * that never arrives in full, bytes that are not HTTP) are answered in the one error body too, with a
 * request id header, instead of Fastify's own `{error, message, statusCode}` shape. The connection is then closed:
 * after a parse error nothing more on it can be trusted.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Socket } from 'node:net';
import { ERROR_CODES, type ErrorCode } from '../errors.js';

const DETAILS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: ['headers_too_large', 'the request line and headers are larger than 16 KiB: shorten the URL (send filters in a body where the route takes one) or the headers'],
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'the request was not received in full in time'],
};

export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, detail] = DETAILS[err.code ?? ''] ?? ['bad_request', 'the request is not valid HTTP'];
  const status = ERROR_CODES[code].status;
  const requestId = randomUUID();
  const body = JSON.stringify({ code, detail });
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n`
      + `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}
