/** JSON Schemas shared by the routes of both services. */

export const errorBody = {
  type: 'object',
  required: ['code', 'detail'],
  properties: {
    code: { type: 'string' },
    detail: { type: 'string' },
    errors: {
      type: 'array',
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
      properties: {
        regime: { type: 'string' }, source: { type: 'string' }, date: { type: 'string', format: 'date' },
        data_complete_at: { type: 'string', format: 'date-time' }, age_ms: { type: 'integer' }, max_age_ms: { type: 'integer' }, stale: { type: 'boolean' },
      },
    },
    warnings: { type: 'array', items: { type: 'string' }, description: 'What an operator should act on (e.g. stale regime data)' },
    code: { type: 'string' },
    detail: { type: 'string' },
  },
} as const;

/** Standard error responses, added to each route's `response` so the OpenAPI document shows them. */
export const errorResponses = (...statuses: number[]): Record<number, typeof errorBody> =>
  Object.fromEntries(statuses.map((s) => [s, errorBody]));
