/**
 * The one error module of tradeseal.
 *
 * Every failure that a user can cause or observe is a `TradesealError` carrying a machine-readable `code`.
 * One table (`ERROR_CODES`) maps each code to its HTTP status, its CLI exit code and a one-line description;
 * the Fastify error handler and the CLI both read it, so a code means the same thing everywhere.
 * The wire shape is the one of the interface decisions: `{code, detail}`, plus `errors[]` on a 422.
 */

export interface FieldError {
  field: string;
  message: string;
}

export interface ErrorSpec {
  status: number;
  exit: number;
  description: string;
}

/** CLI exit codes: 1 unexpected, 2 usage/validation, 3 not found, 4 conflict, 5 refused, 6 unavailable. */
export const EXIT = { internal: 1, usage: 2, notFound: 3, conflict: 4, refused: 5, unavailable: 6 } as const;

const spec = (status: number, exit: number, description: string): ErrorSpec => ({ status, exit, description });

/** The closed list of error codes outside the policy denial codes (which live in src/engine/denials.ts). */
export const ERROR_CODES = {
  validation_failed: spec(422, EXIT.usage, 'The request has invalid fields; `errors` lists every one.'),
  invalid_json: spec(422, EXIT.usage, 'The request body is not valid JSON.'),
  unsupported_media_type: spec(415, EXIT.usage, 'The request body must be application/json.'),
  payload_too_large: spec(413, EXIT.usage, 'The request body is larger than 1 MiB.'),
  not_found: spec(404, EXIT.notFound, 'No such route or resource.'),
  method_not_allowed: spec(405, EXIT.usage, 'The route exists but not for this method.'),
  unauthorized: spec(401, EXIT.refused, 'Missing, invalid, revoked or expired token.'),
  forbidden: spec(403, EXIT.refused, 'The token is valid but its role or scope does not allow this.'),
  conflict: spec(409, EXIT.conflict, 'The request conflicts with the current state.'),
  precondition_failed: spec(412, EXIT.refused, 'A required setting or precondition is missing.'),
  too_many_requests: spec(429, EXIT.refused, 'Rate limit exceeded.'),
  service_unavailable: spec(503, EXIT.unavailable, 'A dependency (the store) is unavailable.'),
  config_invalid: spec(500, EXIT.usage, 'One or more settings are invalid.'),
  store_error: spec(500, EXIT.unavailable, 'The store failed.'),
  internal: spec(500, EXIT.internal, 'An unexpected fault; details are in the server log under the request id.'),
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface TradesealErrorOptions {
  /** HTTP status; defaults to the table's status for a listed code. */
  status?: number;
  /** CLI exit code; defaults to the table's exit code for a listed code. */
  exit?: number;
  errors?: FieldError[];
  /** Extra fields merged into the response body (e.g. `error: "ip_locked"`). */
  extra?: Record<string, unknown>;
  hint?: string;
  cause?: unknown;
}

export class TradesealError extends Error {
  readonly code: string;
  readonly status: number;
  readonly exit: number;
  readonly errors?: FieldError[];
  readonly extra?: Record<string, unknown>;
  readonly hint?: string;

  constructor(code: string, detail: string, options: TradesealErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TradesealError';
    this.code = code;
    const known = (ERROR_CODES as Record<string, ErrorSpec>)[code];
    this.status = options.status ?? known?.status ?? 500;
    this.exit = options.exit ?? known?.exit ?? EXIT.internal;
    if (options.errors) this.errors = options.errors;
    if (options.extra) this.extra = options.extra;
    if (options.hint) this.hint = options.hint;
  }

  get detail(): string {
    return this.message;
  }

  /** The response body of the interface decisions. 5xx bodies never carry internals. */
  toBody(): Record<string, unknown> {
    if (this.status >= 500 && this.code !== 'service_unavailable') {
      return { code: 'internal', detail: ERROR_CODES.internal.description };
    }
    const body: Record<string, unknown> = { code: this.code, detail: this.message, ...this.extra };
    if (this.errors) body.errors = this.errors;
    return body;
  }
}

export const validationError = (errors: FieldError[], detail?: string): TradesealError =>
  new TradesealError('validation_failed', detail ?? `${errors.length} invalid field${errors.length === 1 ? '' : 's'}: ${errors.map((e) => e.field).join(', ')}`, { errors });

export const notFound = (what: string): TradesealError => new TradesealError('not_found', what);

export const conflict = (code: string, detail: string): TradesealError =>
  new TradesealError(code, detail, { status: 409, exit: EXIT.conflict });

export const forbidden = (code: string, detail: string, extra?: Record<string, unknown>): TradesealError =>
  new TradesealError(code, detail, extra ? { status: 403, exit: EXIT.refused, extra } : { status: 403, exit: EXIT.refused });

export const unauthorized = (detail: string): TradesealError => new TradesealError('unauthorized', detail);

export const isTradesealError = (e: unknown): e is TradesealError => e instanceof TradesealError;
