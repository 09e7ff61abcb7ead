/**
 * What the server's log may say about a request and a failure: no token, key, code or personal data, at any
 * `LOG_LEVEL` (`trace` included). Fastify's logger takes these serializers and redaction paths (./app.ts):
 *
 * - `req`: the method, the path, the query with every value replaced by `[redacted]` (the names kept, so the
 *   line still says what was asked: `?email=[redacted]`), the host and the client's address and port. Query
 *   strings carry e-mail addresses (`?email=`, `?to=`) and whatever a client puts there; headers carry tokens
 *   and keys, and are not logged.
 * - `err`: the type, message, stack and code, and of a PostgreSQL error the names of what it concerns; not the
 *   other properties drivers and mailers attach (postgres' `detail` repeats a row's values, nodemailer's
 *   `rejected` and `response` the recipients), and every e-mail address in a message or stack replaced.
 * - `redact`: fields that carry secrets or personal data, wherever a log call might pass them.
 * - the message of every line: e-mail addresses, and the query of any URL, replaced (a job's message may
 *   repeat an error's text, or a webhook's URL with a token in its query).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { stdSerializers, type LogFn, type Logger } from 'pino';

export const REDACTED = '[redacted]';

/** A query parameter name that is a plain name (`email`, `from`, `page[size]`); any other is redacted too. */
const PLAIN_NAME = /^[A-Za-z0-9_.[\]-]{1,64}$/;

/** `url` with each query value replaced by `[redacted]`, keeping the names. */
export function redactQuery(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const query = url.slice(at + 1);
  if (query === '') return url;
  const parts = query.split('&').map((part) => {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    const shown = PLAIN_NAME.test(name) ? name : REDACTED;
    return eq < 0 ? shown : `${shown}=${REDACTED}`;
  });
  return `${url.slice(0, at)}?${parts.join('&')}`;
}

/** Anything shaped like an e-mail address (RFC 5322's dot-atoms, roughly; a domain ending in letters, so `pkg@1.2.3` is not one). */
const EMAIL = /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}\b/g;

export const redactEmails = (text: string): string => text.replace(EMAIL, '[e-mail]');

/** The query of an absolute URL inside a text. */
const URL_QUERY = /(\bhttps?:\/\/[^\s?#"'<>]*)\?[^\s#"'<>]*/g;

/** A log message without e-mail addresses or URL queries. */
export const redactText = (text: string): string => redactEmails(text.replace(URL_QUERY, `$1?${REDACTED}`));

/** Of a PostgreSQL error, the names of what it concerns (never its values: `detail`, `where`, `parameters`). */
const PG_FIELDS = ['severity', 'routine', 'schema_name', 'table_name', 'column_name', 'constraint_name'] as const;

export interface SerializedError {
  type: string;
  message: string;
  stack: string;
  [field: string]: unknown;
}

export function serializeError(err: unknown): SerializedError {
  if (!(err instanceof Error)) return { type: typeof err, message: REDACTED, stack: '' };
  const std = stdSerializers.err(err) as unknown as Record<string, unknown>;
  const out: SerializedError = {
    type: String(std.type),
    message: redactText(String(std.message ?? '')),
    stack: redactText(String(std.stack ?? '')),
  };
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') out.code = code;
  for (const field of PG_FIELDS) {
    const value = (err as unknown as Record<string, unknown>)[field];
    if (typeof value === 'string') out[field] = value;
  }
  return out;
}

export const logSerializers = {
  req: (req: FastifyRequest) => ({
    method: req.method,
    url: redactQuery(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket ? req.socket.remotePort : undefined,
  }),
  res: (reply: Pick<FastifyReply, 'statusCode'>) => ({ statusCode: reply.statusCode }),
  err: serializeError,
};

/** Fields no log line shows, at the top level or one level down (`{body: {email}}`). */
const SECRET_FIELDS = ['headers', 'body', 'query', 'email', 'recipient', 'api_key', 'token', 'secret', 'password', 'regulatory'];

/** The options of the server's logger (pino) that keep it clean: its serializers, redaction and message hook. */
export const logRedaction = {
  serializers: logSerializers,
  redact: { paths: SECRET_FIELDS.flatMap((f) => [f, `*.${f}`]), censor: REDACTED },
  hooks: {
    logMethod(this: Logger, args: Parameters<LogFn>, method: LogFn): void {
      method.apply(this, args.map((a) => (typeof a === 'string' ? redactText(a) : a)) as Parameters<LogFn>);
    },
  },
};
