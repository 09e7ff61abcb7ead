/**
 * The one error handler of the HTTP services: every failure becomes the error body of the interface
 * decisions, `{code, detail}` (+ `errors[]` on a 422), with the status from the one table in src/errors.ts.
 *
 * Fastify's own failures are translated here too: schema validation (Fastify's 400 becomes 422 with every
 * invalid field), malformed JSON (422 `invalid_json`), oversize bodies (413), unknown routes (404).
 * A 5xx never shows internals: it answers `{code: "internal"}` and logs the fault under the request id.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CODES, TradesealError, validationError } from '../errors.js';
import { fieldErrors } from './validation.js';

function translate(err: FastifyError): TradesealError | null {
  if (err instanceof TradesealError) return err;
  if (err.validation) {
    return validationError(fieldErrors(err.validation as Parameters<typeof fieldErrors>[0], err.validationContext));
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new TradesealError('invalid_json', 'the request body is not valid JSON');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new TradesealError('invalid_json', 'the request body is empty but declared as JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new TradesealError('payload_too_large', 'the request body exceeds the 1 MiB limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new TradesealError('unsupported_media_type', 'send the body as application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new TradesealError('invalid_json', 'the Content-Length does not match the body');
  }
  // secure-json-parse rejects __proto__ / constructor.prototype keys with a 400 SyntaxError.
  if (err.statusCode === 400 && err instanceof SyntaxError) {
    return new TradesealError('invalid_json', 'the request body is not acceptable JSON (prototype keys are refused)');
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new TradesealError(err.statusCode === 404 ? 'not_found' : 'bad_request', err.message, { status: err.statusCode });
  }
  return null;
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const known = translate(err);
    if (!known || known.status >= 500) {
      const level = known?.code === 'service_unavailable' ? 'warn' : 'error';
      req.log[level]({ err, reqId: req.id }, 'request failed');
    }
    const e = known ?? new TradesealError('internal', ERROR_CODES.internal.description, { cause: err });
    void reply.code(e.status).type('application/json; charset=utf-8').send(e.toBody());
  });

  app.setNotFoundHandler((req: FastifyRequest, reply: FastifyReply) => {
    void reply.code(404).send({ code: 'not_found', detail: `no route ${req.method} ${req.url.split('?')[0]}` });
  });
}
