/** The JSON Schema of a policy document; `loadPolicy` validates against it at start. */

const sides = { type: 'array', uniqueItems: true, items: { type: 'string', enum: ['Long', 'Short', 'Neutral'] } } as const;
const regimeRule = {
  type: 'object',
  additionalProperties: false,
  required: ['allowed_sides', 'max_notional_scale'],
  properties: { allowed_sides: sides, max_notional_scale: { type: 'number', minimum: 0, maximum: 1 } },
} as const;
const positiveMap = { type: 'object', additionalProperties: { type: 'number', exclusiveMinimum: 0 } } as const;

export const policySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'version', 'regimes', 'currency_caps', 'notional_tolerance', 'regime_max_age_ms', 'agent_valid_time_max_lag_ms'],
  properties: {
    id: { type: 'string', minLength: 1 },
    version: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    regimes: {
      type: 'object',
      additionalProperties: false,
      required: ['expansion', 'recovery', 'tightening', 'risk_off'],
      properties: { expansion: regimeRule, recovery: regimeRule, tightening: regimeRule, risk_off: regimeRule },
    },
    currency_caps: { ...positiveMap, propertyNames: { pattern: '^[A-Z]{3}$' } },
    asset_caps: positiveMap,
    max_quantity: { type: ['number', 'null'], exclusiveMinimum: 0 },
    allowed_venues: { type: ['array', 'null'], items: { type: 'string', minLength: 1 } },
    allowed_order_types: {
      type: ['array', 'null'],
      items: { type: 'string', enum: ['Market', 'Limit', 'Stop', 'StopLimit', 'Twap', 'Vwap'] },
    },
    max_orders_per_second: { type: ['integer', 'null'], minimum: 1 },
    notional_tolerance: { type: 'number', minimum: 0, maximum: 1 },
    regime_max_age_ms: { type: 'integer', minimum: 1 },
    agent_valid_time_max_lag_ms: { type: 'integer', minimum: 0 },
  },
} as const;
