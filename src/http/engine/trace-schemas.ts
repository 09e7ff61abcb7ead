/**
 * Response schemas of the trace reads: the Reasoning_Trace_v1 document, its verification, and the listings.
 *
 * Fastify serializes responses through these schemas, and a serializer drops what a schema does not declare.
 * A trace is a proof: a client recomputes `reasoning_hash` from the document it receives, so the blocks of the
 * sealed document admit further properties (`additionalProperties: true`) and pass them through untouched,
 * whatever a later version seals; the fields of the interface are declared and required.
 */
import { VERIFICATION_STATUSES } from '../../core/vocabulary.js';
import { dateTime, executionStatus, hex64, orderType, traceStatus, tradeAction, uuid } from '../../engine/schemas.js';

const nullableString = { type: ['string', 'null'] } as const;
const nullableHex64 = { type: ['string', 'null'], pattern: hex64.pattern, description: hex64.description } as const;
const nullableNumber = { type: ['number', 'null'] } as const;
export const verificationStatus = { type: 'string', enum: [...VERIFICATION_STATUSES] } as const;

/** A block of the sealed document: its fields required, further ones passed through (see the module comment). */
const block = <P extends Record<string, object>>(properties: P) =>
  ({ type: 'object', additionalProperties: true, required: Object.keys(properties), properties }) as const;

/** A field in which a fill differs from the authorization or the bind (src/engine/reconcile/compare.ts). */
export const differenceSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['field', 'ours', 'theirs', 'rule'],
  properties: {
    field: { type: 'string', description: 'the field compared, as the trace (authorization) or the bind names it' },
    ours: { type: ['string', 'number', 'null'], description: 'what the engine holds: the authorized or bound value' },
    theirs: { type: ['string', 'number', 'null'], description: "what the exchange's fill says (for quantity, the order's cumulative quantity)" },
    rule: { type: 'string', description: 'the rule the fill breaks' },
  },
} as const;

const traceReconciliationSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['fills', 'resolved_by', 'resolved_at', 'resolved'],
  description: "what the exchange's drop copy says of this trace (not sealed)",
  properties: {
    fills: {
      type: 'array',
      description: "the drop copy's fills reconciled with this trace",
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['exec_id', 'trade_date', 'outcome', 'differences', 'applied_at', 'orphan_trace_id'],
        properties: {
          exec_id: { type: 'string' },
          trade_date: { type: 'string', format: 'date' },
          outcome: { type: 'string', enum: ['matched', 'divergent', 'orphan', 'already_known'] },
          differences: { type: 'array', items: differenceSchema },
          applied_at: dateTime,
          orphan_trace_id: { anyOf: [uuid, { type: 'null' }], description: "the ORPHAN trace the fill made before this trace's bind arrived and resolved it" },
        },
      },
    },
    resolved_by: { anyOf: [uuid, { type: 'null' }], description: 'an ORPHAN trace resolved by a later bind of its execution: the bound trace' },
    resolved_at: { type: ['string', 'null'], format: 'date-time' },
    resolved: {
      type: 'array',
      description: "the ORPHAN traces of this trace's execution its bind resolved, with what the fill differed in",
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['orphan_trace_id', 'exchange_tx_id', 'resolved_at', 'differences'],
        properties: {
          orphan_trace_id: uuid,
          exchange_tx_id: { type: 'string' },
          resolved_at: dateTime,
          differences: { type: 'array', items: differenceSchema },
        },
      },
    },
  },
} as const;

export const traceDocumentSchema = {
  type: 'object',
  additionalProperties: true,
  required: ['trace_id', 'version', 'bitemporal', 'mta', 'agent', 'execution', 'heartbeat', 'policy', 'regulatory', 'integrity'],
  properties: {
    trace_id: uuid,
    version: { type: 'string', const: 'Reasoning_Trace_v1' },
    bitemporal: block({ valid_time: dateTime, txn_time: dateTime, time_source: { type: 'string' } }),
    mta: block({
      regime_id: { type: ['integer', 'null'], minimum: 0 },
      regime_label: nullableString,
      risk_level: { ...nullableNumber, description: 'normalized 0.0 to 1.0' },
      max_notional_scale: { ...nullableNumber, description: "the regime's notional multiplier in effect" },
      allowed_sides: { type: ['array', 'null'], items: tradeAction },
      version: nullableString,
      hash: { ...nullableHex64, description: "the regime broadcast's hash" },
      signature_valid: { type: 'boolean' },
    }),
    // null on an ORPHAN trace (src/engine/reconcile/orphan.ts): an execution no order declared a model for.
    agent: block({
      agent_id: uuid,
      feature_schema_id: { ...nullableString, description: 'null on an ORPHAN trace' },
      latent_fingerprint: { ...nullableHex64, description: 'null on an ORPHAN trace' },
    }),
    execution: block({
      action: tradeAction,
      asset: { type: 'string' },
      order_type: { anyOf: [orderType, { type: 'null' }], description: 'null on an ORPHAN trace' },
      venue_id: { ...nullableString, description: 'null on an ORPHAN trace' },
      client_order_id: { ...nullableString, description: 'null on an ORPHAN trace whose drop copy gave none' },
      notional_currency: { type: 'string' },
      quantity: { type: 'number' },
      notional: { type: 'number' },
      multiplier: { type: 'number' },
      limit_price: nullableNumber,
      stop_price: nullableNumber,
      reduce_only: { type: 'boolean' },
    }),
    heartbeat: block({
      sequence_id: { type: ['integer', 'null'], minimum: 0 },
      signature_valid: { type: 'boolean' },
      drift_ms: { type: ['integer', 'null'], description: "txn_time − the heartbeat's timestamp_ms" },
    }),
    policy: block({
      id: { type: 'string' },
      version: { type: 'string' },
      hash: hex64,
      result: { type: 'string', description: '`PASS`, or `FAIL:<code>` for a shadow-halted trace' },
    }),
    regulatory: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: 'The personal data (not sealed: the sealed text carries its salted commitment); null when none was given',
      properties: Object.fromEntries(
        ['mifid_algo_id', 'mifid_decision_maker', 'cftc_cti_code', 'cftc_account_type', 'cat_order_id', 'jurisdiction'].map((f) => [f, nullableString]),
      ),
    },
    integrity: block({
      status: { ...traceStatus, description: 'the listing status' },
      reasoning_hash: { ...hex64, description: 'SHA-256 of the JCS of the sealed document (without `integrity`, `regulatory` replaced by its commitment)' },
      verification_status: verificationStatus,
      execution_status: { anyOf: [executionStatus, { type: 'null' }] },
      final_proof: { ...nullableHex64, description: 'SHA-256 of `reasoning_hash + "||" + exchange_tx_id`; null until bound' },
      regulatory_commitment: {
        ...nullableHex64,
        description: 'SHA-256 of (salt ‖ JCS(regulatory)); null when no regulatory block was sealed. It stays after an erasure',
      },
      regulatory_salt: {
        ...nullableHex64,
        description: 'the 32-byte salt of the commitment, hex, served with the block it salts; null when `regulatory` is null (none, or erased)',
      },
      exchange_tx_id: nullableString,
      divergence_reason: nullableString,
      execution_time: { type: ['string', 'null'], format: 'date-time' },
      reconciliation: traceReconciliationSchema,
    }),
  },
} as const;

const recomputed = <T extends object>(value: T, ok: object) =>
  ({ type: 'object', required: ['stored', 'recomputed', 'ok'], properties: { stored: value, recomputed: value, ok } }) as const;

export const traceVerificationSchema = {
  type: 'object',
  required: ['trace_id', 'valid', 'reasoning_hash', 'final_proof', 'checks'],
  properties: {
    trace_id: uuid,
    valid: { type: 'boolean', description: 'every check passed' },
    reasoning_hash: recomputed(hex64, { type: 'boolean' }),
    final_proof: recomputed(nullableHex64, { type: ['boolean', 'null'], description: 'null: not bound' }),
    checks: {
      type: 'array',
      items: {
        type: 'object',
        required: ['check', 'ok', 'detail'],
        properties: { check: { type: 'string' }, ok: { type: 'boolean' }, detail: { type: 'string' } },
      },
    },
  },
} as const;

export const listingItem = {
  type: 'object',
  required: [
    'trace_id',
    'agent_id',
    'status',
    'verification_status',
    'action',
    'asset',
    'notional',
    'notional_currency',
    'txn_time',
    'reasoning_hash',
    'final_proof',
  ],
  properties: {
    trace_id: uuid,
    agent_id: uuid,
    status: traceStatus,
    verification_status: verificationStatus,
    action: { type: 'string' },
    asset: { type: 'string' },
    notional: { type: 'number' },
    notional_currency: { type: 'string' },
    txn_time: dateTime,
    reasoning_hash: hex64,
    final_proof: nullableHex64,
  },
} as const;

export const listing = {
  type: 'object',
  required: ['count', 'has_more', 'traces'],
  properties: {
    count: { type: 'integer', description: 'how many traces this page holds' },
    has_more: { type: 'boolean', description: 'more traces match than `limit` returned' },
    traces: { type: 'array', items: listingItem, description: 'newest first (txn_time, then trace_id)' },
  },
} as const;
