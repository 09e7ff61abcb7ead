/**
 * The one error handler of the HTTP services: every failure becomes the error body of the interface
 * decisions, `{code, detail}` (+ `errors[]` on a 422), with the status of its code in the one table of
 * src/core/errors.ts.
 *
 * Fastify's own failures are translated here too: schema validation (422 with every invalid field, made by
 * `schemaErrorFormatter`), malformed JSON (422 `invalid_json`), oversize bodies (413), unknown routes (404), a
 * known path asked with another method (405 `method_not_allowed` with an `Allow` header, RFC 9110 §15.5.6),
 * and what the router refuses before routing (`answerFrameworkError`).
 * A 5xx never shows internals: it answers `{code: "internal", request_id}` and logs the fault under that id.
 * A store that is down or too slow (src/store/faults.ts) is not a fault of the server: 503
 * `service_unavailable` with `Retry-After`, logged at warn.
 */
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';

import { ERROR_CODES, TradesealError, validationError, type ErrorCode } from '../core/errors.js';
import { isStoreUnavailable } from '../store/faults.js';
import { RETRY_AFTER_SECONDS } from './deadline.js';
import { errorBodySchema } from '../core/schemas.js';
import { fieldErrors } from '../core/validation.js';

const FASTIFY_CODES: Record<string, [ErrorCode, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: ['invalid_json', 'the request body is not valid JSON'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_json', 'the request body is empty but declared as JSON'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', 'the request body exceeds the 1 MiB limit'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_media_type', 'send the body as application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['invalid_json', 'the Content-Length does not match the body'],
};

/** The code of a 4xx that Fastify raised itself, by status; anything else it refuses is a `bad_request`. */
const BY_STATUS: Record<number, ErrorCode> = { 404: 'not_found', 405: 'method_not_allowed', 413: 'payload_too_large', 415: 'unsupported_media_type' };

/**
 * Fastify's `schemaErrorFormatter`: a request part that fails its schema becomes the 422 of the error table at once,
 * every invalid field listed (../core/validation.ts), instead of Fastify's 400 with its message, translated later.
 */
export const schemaErrorFormatter: NonNullable<FastifyServerOptions['schemaErrorFormatter']> = (errors, part) =>
  validationError(fieldErrors(errors as unknown as Parameters<typeof fieldErrors>[0], part));

function translate(err: FastifyError): TradesealError | null {
  if (err instanceof TradesealError) return err;
  const known = FASTIFY_CODES[err.code];
  if (known) return new TradesealError(known[0], known[1]);
  // secure-json-parse rejects __proto__ / constructor.prototype keys with a 400 SyntaxError.
  if (err.statusCode === 400 && err instanceof SyntaxError) {
    return new TradesealError('invalid_json', 'the request body is not acceptable JSON (prototype keys are refused)');
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new TradesealError(BY_STATUS[err.statusCode] ?? 'bad_request', err.message);
  }
  // The store is down, restarting, or did not answer in time: the request may be retried (Retry-After).
  if (isStoreUnavailable(err)) {
    return new TradesealError('service_unavailable', 'the store is unavailable or did not answer in time; retry the request in a moment');
  }
  return null;
}

const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Failures Fastify answers before it routes (its `frameworkErrors` option), in the error body too: a path with
 * a malformed percent-encoding (`/engine/trace/%zz`) is a 400 `bad_request`, and a path parameter longer than
 * the router admits (100 characters; no id of these APIs comes near) is an invalid field, 422, as a shorter
 * malformed id is. Neither reaches the hooks, so the request id header is set here.
 */
export function answerFrameworkError(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const e =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? validationError([{ field: 'path', message: 'a path parameter is longer than 100 characters' }])
      : err.code === 'FST_ERR_BAD_URL'
        ? new TradesealError('bad_request', 'the URL is not valid: it has a malformed percent-encoding')
        : new TradesealError('internal', ERROR_CODES.internal.description, { cause: err });
  if (e.status >= 500) req.log.error({ err, reqId: req.id }, 'request failed');
  const body = e.toBody();
  if (e.status >= 500) body.request_id = req.id;
  void reply.code(e.status).header('x-request-id', req.id).type('application/json; charset=utf-8').send(body);
}

export function installErrorHandling(app: FastifyInstance): void {
  // The error body every route's error responses refer to (`$ref: 'ErrorBody#'`, see ../core/schemas.ts).
  app.addSchema(errorBodySchema);
  // A second router of every route, only to tell "no such path" (404) from "not with this method" (405).
  const paths = FindMyWay({ ignoreTrailingSlash: true });
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) paths.on(method as HTTPMethod, route.url, () => {});
  });

  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const known = translate(err);
    if (!known || known.status >= 500) {
      const level = known?.status === 503 ? 'warn' : 'error';
      req.log[level]({ err, reqId: req.id }, 'request failed');
    }
    const e = known ?? new TradesealError('internal', ERROR_CODES.internal.description, { cause: err });
    const body = e.toBody();
    if (e.status >= 500 && body.code === 'internal') body.request_id = req.id;
    // Every 503 says when to ask again (RFC 9110 §10.2.3): the store's, and the service's (`pipeline_lag`, `data_late`).
    if (e.status === 503) void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    // Fastify closes the connection after any body its parser refuses, as the client may still be sending it. A
    // body received whole and refused (not JSON, not UTF-8, a duplicated member) leaves the connection clean:
    // it stays open for the client's next request, as after any other 4xx.
    if (known && known.status < 500 && req.raw.complete && reply.getHeader('connection') === 'close') reply.removeHeader('connection');
    void reply.code(e.status).type('application/json; charset=utf-8').send(body);
  });

  app.setNotFoundHandler((req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((m) => m !== req.method && paths.find(m, path) !== null);
    if (allowed.length > 0) {
      const e = new TradesealError('method_not_allowed', `${req.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`);
      void reply.code(e.status).header('allow', allowed.join(', ')).send(e.toBody());
      return;
    }
    const e = new TradesealError('not_found', `no route ${req.method} ${path}`);
    void reply.code(e.status).send(e.toBody());
  });
}
