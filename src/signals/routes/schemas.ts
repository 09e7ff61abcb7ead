/** JSON Schemas shared by the `/v1` routes: the security requirement of keyed routes, and common shapes. */
export { errorResponses } from '../../http/schemas.js';

/** Keyed routes: the `X-Signals-Key` header (the OpenAPI security scheme `signalsKey`). */
export const signalsKeySecurity = [{ signalsKey: [] }];

export const regimeName = { type: 'string', enum: ['expansion', 'recovery', 'tightening', 'risk_off'] } as const;

export const probabilities = {
  type: 'object',
  required: ['expansion', 'recovery', 'tightening', 'risk_off'],
  properties: { expansion: { type: 'number' }, recovery: { type: 'number' }, tightening: { type: 'number' }, risk_off: { type: 'number' } },
} as const;
