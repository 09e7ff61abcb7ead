/**
 * IRL clients' requests (other than the order, ./authorize-input.ts) in tradeseal's form, before the engine
 * route's schema validates them: the bind's fill time and spellings, the IRL agent registration, a shadow-mode
 * switch without a reason, the audit log's cursor, action names and limit, and the pending listing's default
 * age. Pure: each takes the parsed body or query and returns the one the engine route validates.
 */
import { EXECUTION_STATUSES, TRADE_ACTIONS } from '../../core/vocabulary.js';
import { isRecord, lowerHex, refusal } from './authorize-input.js';

/** The model id of an agent registered through `/irl/agents`: what the IRL clients send unless configured. */
export const IRL_MODEL_ID = 'default';
/** The IRL Engine's `max_notional` when a registration leaves it out. */
export const IRL_DEFAULT_MAX_NOTIONAL = 1_000_000;
/** The reason recorded when an IRL client turns shadow mode on without giving one. */
export const IRL_SHADOW_REASON = 'enabled through the IRL-compatible API';
/** The IRL Engine's bounds on an audit-log page: out-of-range limits are clamped, not refused. */
export const IRL_AUDIT_LIMIT = { min: 1, max: 500 } as const;

const byLowerCase = <T extends string>(values: readonly T[]) => new Map<string, T>(values.map((v) => [v.toLowerCase(), v]));
const SIDES = byLowerCase(TRADE_ACTIONS);
const EXECUTION = byLowerCase(EXECUTION_STATUSES);
const spelled = <T extends string>(map: Map<string, T>, v: unknown): unknown => (typeof v === 'string' ? (map.get(v.toLowerCase()) ?? v) : v);

/** `execution_time` (the IRL clients' name) is `execution_time_ms`, which wins when both are sent. */
export function bindBodyFromIrl(body: unknown): unknown {
  if (!isRecord(body)) return body;
  const { execution_time: time, ...out } = body;
  if (time !== undefined && out.execution_time_ms === undefined) out.execution_time_ms = time;
  if ('executed_side' in out) out.executed_side = spelled(SIDES, out.executed_side);
  if ('execution_status' in out) out.execution_status = spelled(EXECUTION, out.execution_status);
  return out;
}

/**
 * Keys of an IRL registration without a per-agent equivalent here. Null means "no restriction" on the IRL
 * Engine and is dropped; a value stays, so the schema refuses it (a 422), rather than a restriction the firm
 * set being silently ignored.
 */
const IRL_ONLY_KEYS = ['policy_module_id', 'max_leverage', 'allowed_venues', 'allowed_mta_pubkeys', 'allowed_assets'];

/** `{name, model_hash_hex, max_notional?, allowed_regimes?}` → an agent with the one model `default`. */
export function registerBodyFromIrl(body: unknown): unknown {
  if (!isRecord(body)) return body;
  const out: Record<string, unknown> = { ...body };
  for (const key of IRL_ONLY_KEYS) if (out[key] === null) delete out[key];
  if (out.allowed_regimes === null) delete out.allowed_regimes;
  if (out.models === undefined && 'model_hash_hex' in out) {
    const { model_hash_hex: hash, ...rest } = out;
    return { ...rest, max_notional: rest.max_notional ?? IRL_DEFAULT_MAX_NOTIONAL, models: [{ model_id: IRL_MODEL_ID, model_hash_hex: lowerHex(hash) }] };
  }
  return out;
}

/** Turning shadow mode on without a reason records `IRL_SHADOW_REASON` (who did it is recorded as always). */
export function shadowBodyFromIrl(body: unknown): unknown {
  if (!isRecord(body) || body.enabled !== true) return body;
  const reason = body.reason;
  return reason === undefined || reason === null || reason === '' ? { ...body, reason: IRL_SHADOW_REASON } : body;
}

/** The IRL Engine's audit action names; several IRL names share one tradeseal action (`agent.status`). */
const AUDIT_ACTIONS: Record<string, string> = {
  AGENT_REGISTER: 'agent.register',
  AGENT_SUSPEND: 'agent.status',
  AGENT_ACTIVATE: 'agent.status',
  AGENT_STATUS_CHANGE: 'agent.status',
  TOKEN_ISSUE: 'token.issue',
  TOKEN_REVOKE: 'token.revoke',
  GDPR_ERASURE: 'gdpr.erase',
};

type Query = Record<string, unknown>;

/** `cursor` is `before_id` (which wins); IRL action names are tradeseal's; the limit is clamped to 1..500. */
export function auditQueryFromIrl(query: Query): Query {
  const { cursor, ...out } = query;
  if (cursor !== undefined && out.before_id === undefined) out.before_id = cursor;
  if (typeof out.action === 'string') {
    if (out.action === 'SHADOW_MODE_CHANGE') {
      throw refusal('action', 'SHADOW_MODE_CHANGE is two actions here: filter by shadow.enable or shadow.disable');
    }
    out.action = AUDIT_ACTIONS[out.action] ?? out.action;
  }
  if (typeof out.limit === 'string' && /^-?\d{1,15}$/.test(out.limit)) {
    out.limit = String(Math.min(IRL_AUDIT_LIMIT.max, Math.max(IRL_AUDIT_LIMIT.min, Number(out.limit))));
  }
  return out;
}

/** The IRL Engine lists every pending trace when no age is given (tradeseal's own default is an hour). */
export function pendingQueryFromIrl(query: Query): Query {
  return query.age_seconds === undefined ? { ...query, age_seconds: '0' } : query;
}
