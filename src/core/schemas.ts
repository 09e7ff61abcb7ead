/** JSON Schemas shared by the routes of both services. */

export const errorBody = {
  type: 'object',
  required: ['code', 'detail'],
  properties: {
    code: { type: 'string', description: 'snake_case error code (the README lists every one)' },
    detail: { type: 'string', description: 'what went wrong, in a sentence' },
    errors: {
      type: 'array',
      description: 'A 422 lists every invalid field, not just the first',
      items: { type: 'object', required: ['field', 'message'], properties: { field: { type: 'string' }, message: { type: 'string' } } },
    },
  },
  additionalProperties: true,
} as const;

export const healthBody = {
  type: 'object',
  required: ['status', 'db_ok', 'cert_expiry_status'],
  properties: {
    status: { type: 'string', enum: ['ok', 'degraded', 'unavailable'] },
    db_ok: { type: 'boolean' },
    cert_expiry_status: { type: ['string', 'null'], enum: ['ok', 'expiring', 'expired', null] },
    regime: {
      type: ['object', 'null'],
      description: 'The engine only: the regime in force, and how old its data are (null: none published, every order is refused)',
      required: ['regime', 'source', 'date', 'data_complete_at', 'age_ms', 'max_age_ms', 'stale'],
      properties: {
        regime: { type: 'string' },
        source: { type: 'string' },
        date: { type: 'string', format: 'date' },
        data_complete_at: { type: 'string', format: 'date-time' },
        age_ms: { type: 'integer' },
        max_age_ms: { type: 'integer' },
        stale: { type: 'boolean' },
      },
    },
    warnings: { type: 'array', items: { type: 'string' }, description: 'What an operator should act on (e.g. stale regime data)' },
    code: { type: 'string' },
    detail: { type: 'string' },
  },
} as const;

/** The security requirement of a route anyone may call (health, the API document): none. */
export const publicRoute: Array<Record<string, string[]>> = [];

/**
 * What an error status means, as the description of its response in the OpenAPI document. The `code` of the
 * body says which error of that status it is (src/core/errors.ts has the one table of codes and statuses).
 */
export const ERROR_STATUS_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'The request cannot be read (a malformed URL or header): `bad_request`.',
  401: 'Missing, invalid, revoked or expired credentials: `unauthorized`.',
  403: 'The credentials are valid but do not allow this: `code` says why.',
  404: 'No such resource: `not_found`.',
  409: 'The request conflicts with the current state: `code` says how.',
  412: 'A required setting or precondition is missing: `precondition_failed`.',
  413: 'The request body is larger than 1 MiB: `payload_too_large`.',
  415: 'The request body must be `application/json`: `unsupported_media_type`.',
  422: 'Invalid input: `validation_failed` with `errors` listing every invalid field, or `invalid_json`.',
  429: 'Too many requests: `code` says which limit, and the headers when it frees up.',
  503: 'Temporarily unavailable: `code` says what; retry later.',
};

/**
 * The error body as a shared schema (`app.addSchema`, done once by the error handling of src/http/app.ts):
 * responses refer to it, so the document has one `ErrorBody` component and generated clients one error type.
 */
export const ERROR_BODY_ID = 'ErrorBody';
export const errorBodySchema = { $id: ERROR_BODY_ID, title: ERROR_BODY_ID, ...errorBody } as const;

export interface ErrorResponseSchema {
  $ref: string;
  description: string;
}

/** One error response with its own description (a route's 403 that names the rules it applies, say). */
export const errorResponse = (description: string): ErrorResponseSchema => ({ $ref: `${ERROR_BODY_ID}#`, description });

/**
 * Standard error responses, added to each route's `response` so the OpenAPI document lists every 4xx the
 * route can answer (405 is global: any known path asked with another method).
 */
export const errorResponses = (...statuses: number[]): Record<number, ErrorResponseSchema> =>
  Object.fromEntries(statuses.map((s) => [s, errorResponse(ERROR_STATUS_DESCRIPTIONS[s] ?? 'An error: `code` says which.')]));

/** Schema atoms every service's schemas use. */
export const uuid = { type: 'string', format: 'uuid' } as const;
export const hex64 = { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'lowercase hex SHA-256' } as const;
export const nullable = <T extends object>(s: T) => ({ anyOf: [s, { type: 'null' }] }) as const;
