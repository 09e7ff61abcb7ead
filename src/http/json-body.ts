/**
 * The JSON body parser. A compliance record must be exactly what was sent, so a body is refused rather than
 * repaired: not UTF-8 (422 `invalid_json`; JSON text exchanged between systems MUST be UTF-8, RFC 8259 §8.1,
 * and a lenient decoder would seal U+FFFD in place of the bytes sent), a declared charset other than UTF-8
 * (415 `unsupported_media_type`, rather than reading UTF-16 or Latin-1 bytes as UTF-8), a duplicated member
 * name (422 `invalid_json` naming it; see ./duplicate-keys.ts), a `\uD800`-style escape of a lone surrogate
 * in any string (422 `validation_failed` listing every such field: I-JSON, RFC 7493 §2.1, forbids them, no
 * UTF-8 text can carry one, and no canonical form exists to seal or audit), prototype keys (secure-json-parse, 422),
 * nesting deeper than MAX_JSON_DEPTH (422 `invalid_json`, judged before the parse; see ./json-depth.ts).
 *
 * An empty body is no body. A client that always sends `Content-Type: application/json` (several SDKs do,
 * on DELETE and on body-less POSTs) must not be refused for it: the route's schema then decides, so a route
 * without a body answers as it would without the header, and a route that needs one answers 422
 * `validation_failed` naming the body, never `invalid_json` for a body that was never sent.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TradesealError, validationError } from '../core/errors.js';
import { firstDuplicateKey } from './duplicate-keys.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** An escape of a surrogate code unit; only then can a parsed string hold a lone one (decoded UTF-8 cannot). */
const LONE_SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** A lone surrogate: with the `u` flag a paired surrogate is one code point and does not match. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const wellFormed = (s: string): boolean => !LONE_SURROGATE.test(s);

/** Adds to `out` the path of every string or member name that is not well-formed UTF-16. */
function loneSurrogates(value: unknown, path: string, out: string[]): string[] {
  if (typeof value === 'string') {
    if (!wellFormed(value)) out.push(path);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => loneSurrogates(item, `${path}[${i}]`, out));
  } else if (value !== null && typeof value === 'object') {
    for (const [name, member] of Object.entries(value)) {
      const at = path === '' ? name : `${path}.${name}`;
      if (!wellFormed(name)) out.push(at);
      else loneSurrogates(member, at, out);
    }
  }
  return out;
}

/** The charset parameter of a Content-Type header, lower-cased and unquoted; null when none is declared. */
export function declaredCharset(contentType: string | undefined): string | null {
  if (!contentType) return null;
  for (const part of contentType.split(';').slice(1)) {
    const [name, ...value] = part.split('=');
    if (name?.trim().toLowerCase() === 'charset')
      return value
        .join('=')
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase();
  }
  return null;
}

function decode(req: FastifyRequest, body: Buffer): string {
  const charset = declaredCharset(req.headers['content-type']);
  if (charset !== null && charset !== 'utf-8' && charset !== 'utf8') {
    throw new TradesealError(
      'unsupported_media_type',
      `the body is declared as charset=${charset}; send it as UTF-8 (application/json; charset=utf-8, or no charset)`,
    );
  }
  try {
    return utf8.decode(body);
  } catch {
    throw new TradesealError('invalid_json', 'the request body is not valid UTF-8');
  }
}

export function installJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    let text: string;
    try {
      text = decode(req, body as Buffer);
    } catch (err) {
      done(err as Error, undefined);
      return;
    }
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      done(new TradesealError('invalid_json', `the request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`), undefined);
      return;
    }
    parseJson(req, text, (err, value) => {
      if (err) {
        done(err, undefined);
        return;
      }
      const surrogates = LONE_SURROGATE_ESCAPE.test(text) ? loneSurrogates(value, '', []) : [];
      if (surrogates.length > 0) {
        done(
          validationError(
            surrogates.map((field) => ({
              field: field === '' ? 'body' : field,
              message:
                'holds a lone UTF-16 surrogate (an escape such as \\ud800 with no partner), which I-JSON (RFC 7493 §2.1) forbids and no canonical JSON can hold',
            })),
          ),
          undefined,
        );
        return;
      }
      const duplicate = firstDuplicateKey(text);
      if (duplicate !== null) {
        done(new TradesealError('invalid_json', `the request body names ${duplicate} more than once; each member name may appear once per object`), undefined);
        return;
      }
      done(null, value);
    });
  });
}
