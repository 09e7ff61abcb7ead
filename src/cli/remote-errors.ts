/**
 * What can go wrong between a command and the remote service its `--url` names (a compliance engine, a
 * regime signal service), said as a mistake of the table with a next step: a `--url` that is not an http(s)
 * URL, a service that cannot be reached (refused, unknown host, timed out), and an address that answers but
 * is not a tradeseal service (an answer that is not JSON, or an error without a code of the table). Shared
 * by `engine-client.ts` and `signals-client.ts`, so both say the same thing about the same mistake.
 */
import { parsers } from '../core/config.js';
import { isErrorCode, TradesealError, type FieldError } from '../core/errors.js';

/** The URL in the form a setting takes it (http or https, no trailing slash); `validation_failed` naming `field` otherwise. */
export function checkRemoteUrl(url: string, field: string): string {
  try {
    return parsers.httpUrl(url);
  } catch {
    const message = `${JSON.stringify(url)} is not an http(s) URL`;
    throw new TradesealError('validation_failed', `${field}: ${message}`, {
      errors: [{ field, message }],
      hint: "give the service's base address, e.g. https://tradeseal.example:8080",
    });
  }
}

/** A fetch that failed before any answer, with the reason the network gave (refused, unknown host, timeout). */
export function unreachable(base: string, err: unknown, hint: string): TradesealError {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  // fetch says "fetch failed"; the reason is its cause's code (ECONNREFUSED, ENOTFOUND) or message ("bad port").
  const why =
    typeof cause?.code === 'string'
      ? cause.code
      : (err as Error).name === 'TimeoutError'
        ? 'no answer in 30 s'
        : typeof cause?.message === 'string'
          ? cause.message
          : (err as Error).message;
  return new TradesealError('service_unavailable', `cannot reach ${base} (${why})`, { hint });
}

/** The JSON of a 2xx answer; an answer that is not JSON means the address is not a tradeseal service. */
export async function jsonAnswer(res: Response, base: string, field: string): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw notTradeseal(base, field, `answered HTTP ${res.status} with ${res.headers.get('content-type') ?? 'no content type'}, not JSON`);
  }
}

/** The text of a 2xx answer of `type` (the CSV export); another type means the address is not a tradeseal service. */
export async function textAnswer(res: Response, base: string, field: string, type: string): Promise<string> {
  const got = res.headers.get('content-type') ?? 'no content type';
  if (!got.startsWith(type)) throw notTradeseal(base, field, `answered HTTP ${res.status} with ${got}, not ${type}`);
  return res.text();
}

/** A binary answer's bytes, when it is of the media type asked for. */
export async function bytesAnswer(res: Response, base: string, field: string, type: string): Promise<Uint8Array> {
  const got = res.headers.get('content-type') ?? 'no content type';
  if (!got.startsWith(type)) throw notTradeseal(base, field, `answered HTTP ${res.status} with ${got}, not ${type}`);
  return new Uint8Array(await res.arrayBuffer());
}

const notTradeseal = (base: string, field: string, what: string): TradesealError => {
  const message = `${base} ${what}: it is not a tradeseal service`;
  return new TradesealError('validation_failed', `${field}: ${message}`, {
    errors: [{ field, message }],
    hint: 'give the base address of a running `tradeseal serve`, without a path (e.g. https://tradeseal.example:8080)',
  });
};

/**
 * The error an answer that is not 2xx stands for: the service's own code and detail when it answered with
 * the error body of the interface; otherwise (another server at that address) `validation_failed` naming
 * `field` for a 4xx, `service_unavailable` for a 5xx (a proxy in front of a service that is down).
 */
export async function errorAnswer(res: Response, base: string, route: string, field: string, hints: { unauthorized: string }): Promise<TradesealError> {
  let body: { code?: unknown; detail?: unknown; errors?: FieldError[] } = {};
  try {
    body = (await res.json()) as typeof body;
  } catch {
    // Not the error body of the interface: said below.
  }
  const code = body?.code;
  if (!isErrorCode(code)) {
    if (res.status === 401) return new TradesealError('unauthorized', `${base}: ${route} answered HTTP 401`, { hint: hints.unauthorized });
    if (res.status >= 500)
      return new TradesealError('service_unavailable', `${base}: ${route} answered HTTP ${res.status}`, {
        hint: 'the service or a proxy in front of it is failing; retry later',
      });
    return notTradeseal(base, field, `answered ${route} with HTTP ${res.status} and no tradeseal error`);
  }
  const detail = typeof body.detail === 'string' ? body.detail : `${route} answered HTTP ${res.status}`;
  return new TradesealError(code, `${base}: ${detail}`, {
    ...(body.errors ? { errors: body.errors } : {}),
    ...(code === 'unauthorized' ? { hint: hints.unauthorized } : {}),
  });
}
