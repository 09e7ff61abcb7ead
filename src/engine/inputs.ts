/**
 * What an operator may send to the engine's admin and reading operations, as JSON Schemas: the routes validate
 * their bodies, path parameters and query strings with these, and the CLI validates its flags with the same
 * ones through the same validator (src/core/validation.ts `validatePart`), so both accept exactly the same
 * values and refuse the others with the same messages. Rules across fields or on the store's state (which
 * agents a token may name, a reason for shadow mode) are not schema: they live in the operations of
 * src/engine/ops/, which both call.
 *
 * Authorize and bind, which only agents send, keep their schemas beside their route (routes/authorize-bind.ts).
 */
import { AGENT_STATUSES } from './store/agents.js';
import { TOKEN_ROLES } from './store/tokens.js';
import { model, positive, probabilities, regime, regimeRef, safeText, storedUnixMs, traceStatus, uuid } from './schemas.js';

/** Text a person reads later (a name): 1-`max` characters, not white space alone, storable and sealable. */
const label = <N extends number>(maxLength: N) => ({ type: 'string', minLength: 1, maxLength, pattern: safeText, format: 'non-blank' }) as const;
/** An optional reason: null or absent for none; when given, not blank. */
const reason = { type: ['string', 'null'], maxLength: 1000, pattern: safeText, format: 'non-blank' } as const;

// Tokens

export const issueTokenBody = {
  type: 'object',
  additionalProperties: false,
  required: ['client_name'],
  properties: {
    client_name: label(200),
    role: { type: 'string', enum: [...TOKEN_ROLES], default: 'client' },
    agent_ids: { type: 'array', items: uuid, minItems: 1, maxItems: 10000, uniqueItems: true },
    ttl_days: { type: 'number', exclusiveMinimum: 0, maximum: 3650 },
  },
} as const;

export const tokenParams = { type: 'object', required: ['token_id'], properties: { token_id: uuid } } as const;

// Agents

export const agentParams = { type: 'object', required: ['agent_id'], properties: { agent_id: uuid } } as const;

/** One approved model version: `model_id` and the SHA-256 (lowercase hex) of its weights. */
export const approvedModelBody = model;

export const registerAgentBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'max_notional', 'models'],
  properties: {
    name: label(200),
    max_notional: positive,
    models: { type: 'array', items: model, maxItems: 1000 },
    allowed_regimes: { type: 'array', items: regimeRef, uniqueItems: true, maxItems: 8 },
    max_open_notional: {
      ...positive,
      description: "A cap on the agent's open exposure: the notional of its PENDING traces plus the new order (absent: no cap)",
    },
  },
} as const;

export const agentStatusBody = {
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: { status: { type: 'string', enum: [...AGENT_STATUSES] }, reason },
} as const;

// Shadow mode

/** A reason is required to turn shadow mode on; that rule is the operation's (ops/shadow-mode.ts). */
export const shadowModeBody = {
  type: 'object',
  additionalProperties: false,
  required: ['enabled'],
  properties: { enabled: { type: 'boolean' }, reason },
} as const;

// Reading traces

export const traceParams = { type: 'object', required: ['trace_id'], properties: { trace_id: uuid } } as const;

export const listingLimit = { type: 'integer', minimum: 1, maximum: 5000, default: 500 } as const;

export const tracesQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    agent_id: uuid,
    from: storedUnixMs,
    to: storedUnixMs,
    status: traceStatus,
    limit: listingLimit,
    search: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      pattern: safeText,
      description: 'only traces whose agent_id starts with it or whose asset contains it (case-insensitive)',
    },
    before_time: { ...storedUnixMs, description: 'the next page: the txn_time (Unix ms) of the last trace of the previous page, with before_trace_id' },
    before_trace_id: { ...uuid, description: 'the next page: the trace_id of the last trace of the previous page, with before_time' },
    needs_attention: {
      type: 'boolean',
      description: "only traces that need an officer's attention, as GET /engine/orphans lists them (an ORPHAN a later bind resolved does not)",
    },
  },
} as const;

export const pendingQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { age_seconds: { type: 'integer', minimum: 0, maximum: 31_622_400, default: 3600 }, limit: listingLimit },
} as const;

/** `?limit` alone: the orphans, shadow-violations and refused drop-copy messages listings. */
export const listingQuery = { type: 'object', additionalProperties: false, properties: { limit: listingLimit } } as const;

// The regime broadcast

/** An operator's manual broadcast (`POST /engine/admin/regime`, `tradeseal regime publish`). */
export const manualBroadcastBody = {
  type: 'object',
  additionalProperties: false,
  required: ['regime', 'risk_score', 'reason'],
  properties: {
    regime,
    risk_score: { type: 'number', minimum: 0, maximum: 1 },
    reason: label(1000),
    // Postgres has no year 0000, which the `date` format admits.
    date: { type: 'string', format: 'date', pattern: '^(?!0000)' },
    probabilities,
    model_version: label(100),
  },
} as const;

/** Releasing the operator's override (`POST /engine/admin/regime/release`, `tradeseal regime release`). */
export const releaseBody = {
  type: 'object',
  additionalProperties: false,
  properties: { reason: label(1000) },
} as const;
