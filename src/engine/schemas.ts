/** JSON Schemas of the engine's requests and responses (they validate requests and generate the OpenAPI document). */
import { errorResponse, errorResponses, hex64, nullable, uuid } from '../core/schemas.js';

export { hex64, nullable, uuid };
import { EXECUTION_STATUSES, ORDER_TYPES, REGIMES, TRACE_STATUSES, TRADE_ACTIONS } from '../core/vocabulary.js';

export const dateTime = { type: 'string', format: 'date-time' } as const;
/**
 * Unix ms: a non-negative integer within the range of an ECMAScript Date (8.64e15 ms, ECMA-262 §21.4.1.1;
 * below 2^53, so JSON numbers carry it exactly). A larger value would become an Invalid Date when sealed.
 */
export const unixMs = { type: 'integer', minimum: 0, maximum: 8.64e15 } as const;
/**
 * Unix ms that goes into a Postgres `timestamptz`: at most 9999-12-31T23:59:59.999Z. A later Date is sent by the
 * driver as an expanded-year ISO string (`+010000-…`), which Postgres refuses: a 500 instead of a 422.
 */
export const storedUnixMs = { type: 'integer', minimum: 0, maximum: 253_402_300_799_999 } as const;
/** > 0 and finite: JSON cannot carry NaN or Infinity, and the bound keeps products finite. */
export const positive = { type: 'number', exclusiveMinimum: 0, maximum: 1e15 } as const;
/**
 * Text the store and the seal can hold: no NUL (Postgres `text` refuses it) and no unpaired UTF-16 surrogate
 * (I-JSON, RFC 7493 §2.1, so RFC 8785 JCS refuses it). Without this such a string would be a 500, not a 422.
 * Ajv compiles patterns with the `u` flag, so a well-formed surrogate pair is one code point and passes.
 */
export const safeText = '^[^\\u0000\\uD800-\\uDFFF]*$';
export const shortText = { type: 'string', minLength: 1, maxLength: 256, pattern: safeText } as const;
export const regime = { type: 'string', enum: [...REGIMES] } as const;
/** A regime by name or by wire id (0 expansion, 1 recovery, 2 tightening, 3 risk_off). */
export const regimeRef = {
  anyOf: [regime, { type: 'integer', minimum: 0, maximum: REGIMES.length - 1 }],
  description: 'a regime name, or its id: 0 expansion, 1 recovery, 2 tightening, 3 risk_off',
} as const;
export const tradeAction = { type: 'string', enum: [...TRADE_ACTIONS] } as const;
export const orderType = { type: 'string', enum: [...ORDER_TYPES] } as const;
export const executionStatus = { type: 'string', enum: [...EXECUTION_STATUSES] } as const;
export const traceStatus = { type: 'string', enum: [...TRACE_STATUSES] } as const;

export const tokenRecord = {
  type: 'object',
  required: ['token_id', 'client_name', 'role', 'agent_ids', 'created_at', 'expires_at', 'revoked_at'],
  properties: {
    token_id: uuid,
    client_name: { type: 'string' },
    role: { type: 'string', enum: ['client', 'owner', 'auditor'] },
    agent_ids: { type: ['array', 'null'], items: uuid, description: 'the agents a client token acts and reads for; null: every agent' },
    created_at: dateTime,
    expires_at: { type: ['string', 'null'], format: 'date-time' },
    revoked_at: { type: ['string', 'null'], format: 'date-time' },
  },
} as const;

export const model = {
  type: 'object',
  additionalProperties: false,
  required: ['model_id', 'model_hash_hex'],
  properties: { model_id: shortText, model_hash_hex: hex64 },
} as const;

export const agent = {
  type: 'object',
  required: [
    'agent_id',
    'name',
    'status',
    'status_reason',
    'max_notional',
    'allowed_regimes',
    'max_open_notional',
    'models',
    'created_at',
    'erased',
    'erased_at',
  ],
  properties: {
    agent_id: uuid,
    name: { type: ['string', 'null'], description: 'personal data: stored encrypted with a key-management provider; null once erased' },
    status: { type: 'string', enum: ['Active', 'Suspended', 'Deregistered'] },
    status_reason: { type: ['string', 'null'] },
    max_notional: { type: 'number' },
    allowed_regimes: { type: ['array', 'null'], items: regime, description: 'null: every regime' },
    max_open_notional: { type: ['number', 'null'], description: 'The cap on open exposure (PENDING orders plus the new one); null: none' },
    models: { type: 'array', items: model },
    created_at: dateTime,
    erased: { type: 'boolean', description: "the agent's personal data were erased (`POST /engine/admin/gdpr-erase/{agent_id}`); it cannot authorize" },
    erased_at: { type: ['string', 'null'], format: 'date-time' },
  },
} as const;

export const probabilities = {
  type: 'object',
  additionalProperties: false,
  required: [...REGIMES],
  properties: Object.fromEntries(REGIMES.map((r) => [r, { type: 'number', minimum: 0, maximum: 1 }])),
} as const;

export const regimeBroadcast = {
  type: 'object',
  required: [
    'date',
    'regime',
    'regime_id',
    'risk_score',
    'probabilities',
    'model_version',
    'hash',
    'source',
    'reason',
    'published_by',
    'published_at',
    'effective_since',
    'available_at',
  ],
  properties: {
    date: { type: 'string', format: 'date' },
    regime,
    regime_id: { type: 'integer' },
    risk_score: { type: 'number' },
    probabilities,
    model_version: { type: 'string' },
    hash: { ...hex64, description: "SHA-256 of the JCS of {date, regime, regime_id, risk_score, probabilities, model_version}: a heartbeat's mta_ref" },
    source: { type: 'string', enum: ['pipeline', 'manual'] },
    reason: { type: ['string', 'null'] },
    published_by: { type: ['string', 'null'] },
    published_at: dateTime,
    effective_since: dateTime,
    available_at: {
      type: ['string', 'null'],
      format: 'date-time',
      description:
        "When the broadcast day was published by the pipeline (06:30 New York on the next trading day), computed only from values released by then; null for an operator's broadcast",
    },
  },
} as const;

/** How old the data of the regime in force are (src/engine/policy/freshness.ts). */
export const regimeFreshness = {
  type: 'object',
  required: ['date', 'data_complete_at', 'age_ms', 'max_age_ms', 'stale'],
  properties: {
    date: { type: 'string', format: 'date' },
    data_complete_at: dateTime,
    age_ms: { type: 'integer' },
    max_age_ms: { type: 'integer' },
    stale: { type: 'boolean' },
  },
} as const;

export const shadowMode = {
  type: 'object',
  required: ['enabled', 'reason', 'changed_at', 'changed_by'],
  properties: {
    enabled: { type: 'boolean' },
    reason: { type: ['string', 'null'] },
    changed_at: { type: ['string', 'null'], format: 'date-time' },
    changed_by: { type: ['string', 'null'] },
  },
} as const;

export const bearer = [{ bearer: [] }];
export { errorResponse, errorResponses };
