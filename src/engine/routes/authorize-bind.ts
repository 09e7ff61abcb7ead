/** `POST /engine/authorize` and `POST /engine/bind-execution`: the engine's two core operations. */
import type { FastifyInstance } from 'fastify';
import { authorize, type AuthorizeMember, type AuthorizeRequest } from '../authorize.js';
import { requireToken } from '../auth.js';
import { bindExecution, type BindRequest } from '../bind.js';
import type { EngineContext } from '../context.js';
import { auditingRefusals } from '../audit/rejections.js';
import { assertCertificateMayActFor } from '../mtls.js';
import { authorizeRequestExample, authorizeResponseExample, bindRequestExample, bindResponseExample } from './examples.js';
import { bearer, dateTime, errorResponse, errorResponses, executionStatus, hex64, nullable, orderType, positive, safeText, shortText, storedUnixMs, tradeAction, uuid } from './schemas.js';

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
    mifid_algo_id: nullableString, mifid_decision_maker: nullableString, cftc_cti_code: nullableString,
    cftc_account_type: nullableString, cat_order_id: nullableString, jurisdiction: nullableString,
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
  { if: { properties: { order_type: { const: 'Limit' } }, required: ['order_type'] }, then: { required: ['limit_price'], properties: { limit_price: positive, stop_price: { type: 'null' } } } },
  { if: { properties: { order_type: { const: 'Stop' } }, required: ['order_type'] }, then: { required: ['stop_price'], properties: { stop_price: positive, limit_price: { type: 'null' } } } },
  { if: { properties: { order_type: { const: 'StopLimit' } }, required: ['order_type'] }, then: { required: ['limit_price', 'stop_price'], properties: { limit_price: positive, stop_price: positive } } },
  { if: { properties: { order_type: { enum: ['Market', 'Twap', 'Vwap'] } }, required: ['order_type'] }, then: { properties: { limit_price: { type: 'null' }, stop_price: { type: 'null' } } } },
];

export const authorizeBody = {
  type: 'object',
  additionalProperties: false,
  required: ['agent_id', 'model_hash_hex', 'model_id', 'prompt_version', 'feature_schema_id', 'hyperparameter_checksum',
    'action', 'asset', 'order_type', 'venue_id', 'quantity', 'notional', 'client_order_id', 'agent_valid_time'],
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
  } satisfies Record<AuthorizeMember, unknown>,
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

export function authorizeBindRoutes(app: FastifyInstance, ctx: EngineContext): void {
  const write = requireToken(ctx, 'write');

  app.post<{ Body: AuthorizeRequest }>('/engine/authorize', {
    onRequest: write,
    schema: {
      tags: ['engine'], operationId: 'authorize', security: bearer,
      summary: 'Check an order against policy and the regime, and seal the agent\'s reasoning',
      description: 'Answers 200 only after the trace is committed. A 403 names the violated rule in `code` and the numbers in `detail`. '
        + 'The same agent and `client_order_id` with the same order fields answer the original response again (no new trace).',
      body: { ...authorizeBody, examples: [authorizeRequestExample] },
      response: {
        200: {
          type: 'object',
          description: 'Authorized and sealed (with shadow mode on, `shadow_blocked: true` marks an order the policy would have refused)',
          required: ['trace_id', 'reasoning_hash', 'authorized', 'shadow_blocked'],
          properties: { trace_id: uuid, reasoning_hash: hex64, authorized: { type: 'boolean' }, shadow_blocked: { type: 'boolean' } },
          examples: [authorizeResponseExample],
        },
        ...errorResponses(401, 409, 413, 415, 422),
        403: errorResponse('Refused: a policy denial (`code` names the rule, `detail` the numbers), a heartbeat check, an agent or model that is not active or approved, '
          + 'a token that may not act for this agent (`agent_not_permitted`), an auditor token (`forbidden`), or, under mutual TLS, a client certificate whose common name is not this agent (`mtls_cn_mismatch`). No trace is stored.'),
        409: errorResponse('The `client_order_id` was already used by this agent for a different order: `client_order_id_conflict`.'),
      },
    },
  }, async (req) => auditingRefusals(ctx.sql, req.principal, req.body, async () => {
    // Mutual TLS: the client certificate must be the order's agent (src/engine/mtls.ts), checked first.
    assertCertificateMayActFor(req.clientIdentity, req.body.agent_id);
    return authorize(ctx, req.principal, req.body);
  }));

  app.post<{ Body: BindRequest }>('/engine/bind-execution', {
    onRequest: write,
    schema: {
      tags: ['engine'], operationId: 'bindExecution', security: bearer,
      summary: 'Bind the exchange confirmation to a sealed trace',
      description: 'The verification is not always `Matched`: the opposite side is `Mismatch`; another asset, or a quantity outside the tolerance, is `Divergent` with a `divergence_reason`.',
      body: { ...bindBody, examples: [bindRequestExample] },
      response: {
        200: {
          type: 'object',
          description: 'Bound: the final proof and the verification of the execution against the authorized intent',
          required: ['trace_id', 'final_proof', 'verification_status', 'execution_status', 'execution_time', 'divergence_reason'],
          properties: {
            trace_id: uuid, final_proof: hex64,
            verification_status: { type: 'string', enum: ['Matched', 'Divergent', 'Mismatch'] },
            execution_status: executionStatus, execution_time: dateTime,
            divergence_reason: { type: ['string', 'null'], description: 'set when verification_status is Divergent or Mismatch' },
          },
          examples: [bindResponseExample],
        },
        ...errorResponses(401, 403, 404, 413, 415, 422),
        404: errorResponse('No trace with this `trace_id`: `not_found`.'),
        409: errorResponse('The trace is already bound to an execution: `trace_already_bound`.'),
      },
    },
  }, async (req) => {
    // Mutual TLS: only the trace's agent binds it (checked on the row the bind reads; no trace is bind's 404).
    const identity = req.clientIdentity;
    return bindExecution(ctx, req.principal, req.body, identity ? (agentId) => assertCertificateMayActFor(identity, agentId) : undefined, req.log);
  });
}
