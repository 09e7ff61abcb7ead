/** JSON Schemas shared by the `/v1` routes: the security requirement of keyed routes, and common shapes. */
import { RECORD_BASES } from '../../signals/inputs.js';

export { errorResponses } from '../../core/schemas.js';

/** Keyed routes: the `X-Signals-Key` header (the OpenAPI security scheme `signalsKey`). */
export const signalsKeySecurity = [{ signalsKey: [] }];

export const regimeName = { type: 'string', enum: ['expansion', 'recovery', 'tightening', 'risk_off'] } as const;

export const probabilities = {
  type: 'object',
  required: ['expansion', 'recovery', 'tightening', 'risk_off'],
  properties: { expansion: { type: 'number' }, recovery: { type: 'number' }, tightening: { type: 'number' }, risk_off: { type: 'number' } },
} as const;

/** What a performance figure or a chart rests on (src/signals/ops/track-record.ts). */
export const recordSchema = {
  type: 'object',
  required: ['basis', 'days', 'live_days', 'backfill_days', 'unlogged_days'],
  description:
    'What the figures rest on: `basis` `all` (every published day) or `live` (the days whose regimes were logged live in the track log), `days` the days with a return they count, and the days of their span by the record of the regimes each rests on (the one taken at its open and the one held into it): logged live, backfilled, not logged (published before the track log existed).',
  properties: {
    basis: { type: 'string', enum: [...RECORD_BASES] },
    days: { type: 'integer' },
    live_days: { type: 'integer' },
    backfill_days: { type: 'integer' },
    unlogged_days: { type: 'integer' },
  },
} as const;
