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
    status: { type: 'string', enum: ['ok', 'unavailable'] },
    db_ok: { type: 'boolean' },
    cert_expiry_status: { type: ['string', 'null'], enum: ['ok', 'expiring', 'expired', null] },
    code: { type: 'string' },
    detail: { type: 'string' },
  },
} as const;

/** Standard error responses, added to each route's `response` so the OpenAPI document shows them. */
export const errorResponses = (...statuses: number[]): Record<number, typeof errorBody> =>
  Object.fromEntries(statuses.map((s) => [s, errorBody]));
