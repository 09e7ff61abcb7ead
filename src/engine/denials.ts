/**
 * The closed list of reasons the engine refuses an order or a heartbeat.
 *
 * A rule breach is data, not an exception (after nautilus_trader's `DeniedReason`): policy evaluation returns
 * `{ok: false, code, detail}`; the route turns it into a 403 (or, in shadow mode, a `SHADOW_HALTED` trace with
 * `policy.result = "FAIL:<code>"`). The README's table is generated from `DENIALS`, and a test keeps them in step.
 */

export const DENIALS = {
  agent_not_active: 'The agent is unknown, suspended, deregistered or erased.',
  model_not_registered: 'The model_hash_hex is not an approved version of model_id for this agent.',
  regime_not_allowed: 'The current regime is outside the agent\'s allowed_regimes (reduce_only orders pass).',
  side_not_allowed: 'The action is not in the current regime\'s allowed_sides (reduce_only orders pass).',
  notional_cap_exceeded: 'The notional exceeds min(agent max_notional, currency cap) × the regime\'s max_notional_scale.',
  currency_not_allowed: 'The policy has no cap for notional_currency.',
  asset_cap_exceeded: 'The notional exceeds the policy\'s cap for this asset.',
  quantity_cap_exceeded: 'The quantity exceeds the policy\'s max_quantity.',
  venue_not_allowed: 'The venue_id is not in the policy\'s allowed venues.',
  order_type_not_allowed: 'The order_type is not in the policy\'s allowed order types.',
  notional_inconsistent: 'The notional disagrees with quantity × price × multiplier beyond the tolerance.',
  order_rate_exceeded: 'The agent sent more orders in the last second than the policy allows (MiFID II RTS 6 throttle).',
  regime_stale: 'No regime is published, or the published one is older than the policy\'s maximum age.',
  agent_valid_time_lag: 'The agent\'s agent_valid_time is further behind the current regime than the policy allows.',
  heartbeat_signature_invalid: 'The heartbeat\'s signature does not verify against the regime operator\'s public key.',
  heartbeat_expired: 'The heartbeat\'s timestamp_ms is outside the replay window of the engine\'s clock.',
  heartbeat_regime_mismatch: 'The heartbeat\'s regime_id is not the current regime\'s.',
  heartbeat_mta_mismatch: 'The heartbeat\'s mta_ref is not the hash of the current regime broadcast.',
  heartbeat_mta_required: 'HEARTBEAT_REQUIRE_MTA_REF is on and the heartbeat carries no mta_ref.',
  heartbeat_replayed: 'The heartbeat\'s sequence_id is not greater than the last one accepted from this agent.',
  agent_not_permitted: 'The token is bound to other agents.',
} as const;

export type DenialCode = keyof typeof DENIALS;

export type Verdict = { ok: true } | { ok: false; code: DenialCode; detail: string };

export const PASS: Verdict = Object.freeze({ ok: true });

export const deny = (code: DenialCode, detail: string): Verdict => ({ ok: false, code, detail });

/** The README table of denial codes. */
export function denialsTable(): string {
  return ['| Code (403) | Meaning |', '|---|---|', ...Object.entries(DENIALS).map(([c, d]) => `| \`${c}\` | ${d} |`)].join('\n');
}
