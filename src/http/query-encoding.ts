/**
 * Query strings are read strictly: a parameter whose percent-encoding is not UTF-8 (`%ED%A0%80`, the WTF-8
 * bytes of a lone surrogate; `%FF`; a stray `%`) is a 422 `validation_failed` naming it. The router's parser
 * (fast-querystring) keeps a value it cannot decode as the raw text sent, so `?search=%ED%A0%80` searched for
 * those nine characters instead of being refused; a path with such an escape is already a 400
 * (./error-handler.ts), and a body that is not UTF-8 a 422 (./json-body.ts). URLs carry UTF-8 percent-encoded
 * (RFC 3986 §2.5), and no UTF-8 text holds a surrogate (RFC 3629 §3).
 *
 * Checked before the route's schema, and only on routes that read a query string (one with a `querystring`
 * schema): a route that reads none ignores it, as before.
 */
import type { FastifyInstance } from 'fastify';
import { validationError, type FieldError } from '../core/errors.js';

/** `application/x-www-form-urlencoded` text decoded strictly (`+` is a space); null when it is not UTF-8. */
function decoded(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/** A field error for each parameter of the query part of `url` that is not percent-encoded UTF-8. */
export function malformedQueryParameters(url: string): FieldError[] {
  const start = url.indexOf('?');
  if (start < 0) return [];
  const errors: FieldError[] = [];
  for (const pair of url.slice(start + 1).split('&')) {
    if (decoded(pair) !== null) continue;
    const eq = pair.indexOf('=');
    const name = decoded(eq < 0 ? pair : pair.slice(0, eq));
    errors.push({ field: name ?? 'querystring', message: 'is not percent-encoded UTF-8 (a malformed escape, or the bytes of a lone surrogate)' });
  }
  return errors;
}

export function installStrictQueryString(app: FastifyInstance): void {
  app.addHook('preValidation', (req, _reply, done) => {
    if (req.routeOptions.schema?.querystring === undefined) return done();
    const errors = malformedQueryParameters(req.url);
    done(errors.length === 0 ? undefined : validationError(errors));
  });
}
