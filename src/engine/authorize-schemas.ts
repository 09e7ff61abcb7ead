/**
 * The bodies of `POST /irl/authorize`-style authorize and bind requests as JSON Schemas: one source for the engine's HTTP
 * routes (src/http/engine/authorize-bind.ts) and the checks that read the same bodies (the reconciliation of a
 * bind, src/engine/reconcile/schema.ts).
 */
import { executionStatus, hex64, nullable, orderType, positive, safeText, shortText, storedUnixMs, tradeAction, uuid } from './schemas.js';

const nullableString = { type: ['string', 'null'], maxLength: 256, pattern: safeText } as const;

const heartbeat = {
  type: 'object',
  additionalProperties: false,
  required: ['sequence_id', 'timestamp_ms', 'regime_id', 'signature'],
  properties: {
    sequence_id: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    timestamp_ms: storedUnixMs,
    regime_id: { type: 'integer', minimum: 0, maximum: 2147483647 },
    mta_ref: { type: ['string', 'null'], maxLength: 128 },
    signature: { type: 'string', minLength: 1, maxLength: 256 },
  },
} as const;

const regulatory = {
  type: 'object',
  additionalProperties: false,
  properties: {
    mifid_algo_id: nullableString,
    mifid_decision_maker: nullableString,
    cftc_cti_code: nullableString,
    cftc_account_type: nullableString,
    cat_order_id: nullableString,
    jurisdiction: nullableString,
  },
} as const;

const taggedAction = {
  oneOf: [
    tradeAction,
    { type: 'object', additionalProperties: false, required: ['Long'], properties: { Long: positive } },
    { type: 'object', additionalProperties: false, required: ['Short'], properties: { Short: positive } },
  ],
} as const;

/** The price rules per OrderType of docs/decisions/0004-engine-enumerations.md, as schema rules: one 422 lists all. */
const priceRules = [
  {
    if: { properties: { order_type: { const: 'Limit' } }, required: ['order_type'] },
    then: { required: ['limit_price'], properties: { limit_price: positive, stop_price: { type: 'null' } } },
  },
  {
    if: { properties: { order_type: { const: 'Stop' } }, required: ['order_type'] },
    then: { required: ['stop_price'], properties: { stop_price: positive, limit_price: { type: 'null' } } },
  },
  {
    if: { properties: { order_type: { const: 'StopLimit' } }, required: ['order_type'] },
    then: { required: ['limit_price', 'stop_price'], properties: { limit_price: positive, stop_price: positive } },
  },
  {
    if: { properties: { order_type: { enum: ['Market', 'Twap', 'Vwap'] } }, required: ['order_type'] },
    then: { properties: { limit_price: { type: 'null' }, stop_price: { type: 'null' } } },
  },
];

export const authorizeBody = {
  type: 'object',
  additionalProperties: false,
  required: [
    'agent_id',
    'model_hash_hex',
    'model_id',
    'prompt_version',
    'feature_schema_id',
    'hyperparameter_checksum',
    'action',
    'asset',
    'order_type',
    'venue_id',
    'quantity',
    'notional',
    'client_order_id',
    'agent_valid_time',
  ],
  properties: {
    agent_id: uuid,
    model_hash_hex: hex64,
    model_id: shortText,
    prompt_version: shortText,
    feature_schema_id: shortText,
    hyperparameter_checksum: shortText,
    action: taggedAction,
    asset: shortText,
    order_type: orderType,
    venue_id: shortText,
    quantity: positive,
    notional: positive,
    client_order_id: { type: 'string', minLength: 1, maxLength: 128, pattern: safeText },
    agent_valid_time: storedUnixMs,
    limit_price: nullable(positive),
    stop_price: nullable(positive),
    multiplier: positive,
    notional_currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 alphabetic code' },
    reduce_only: { type: 'boolean' },
    heartbeat: nullable(heartbeat),
    regulatory: nullable(regulatory),
  },
  allOf: priceRules,
} as const;

export const bindBody = {
  type: 'object',
  additionalProperties: false,
  required: ['trace_id', 'exchange_tx_id', 'execution_status'],
  properties: {
    trace_id: uuid,
    exchange_tx_id: { type: 'string', pattern: '^[\\x21-\\x7E]{1,128}$', description: 'printable ASCII, 1-128 characters' },
    execution_status: executionStatus,
    asset: { type: ['string', 'null'], minLength: 1, maxLength: 256, pattern: safeText },
    executed_quantity: { type: ['number', 'null'], minimum: 0, maximum: 1e15 },
    executed_side: nullable(tradeAction),
    execution_price: nullable(positive),
    execution_time_ms: nullable(storedUnixMs),
  },
} as const;
