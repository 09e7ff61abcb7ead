/**
 * Authorize: the engine's pre-trade gate. In order:
 * 1. scope: a client token bound to agents acts for those only;
 * 2. idempotency: a retry of the same order returns the original response; other fields → 409;
 * 3. registry: the agent is Active and not erased, and the model version approved (never bypassed, shadow
 *    mode or not);
 * 4. Layer 2: the heartbeat's signature, age, regime and mta_ref, and not already spent;
 * 5. clock: an agent_valid_time later than the engine's clock beyond the replay window is refused;
 * 6. policy: the regime's rules, the order's shape and size, the per-agent message rate, and (for an agent
 *    with `max_open_notional`) its open exposure, judged under a lock on the agent's row in the transaction
 *    that seals, so concurrent orders cannot both take the last room under the cap;
 * 7. seal and commit the trace in one statement that first spends the heartbeat's sequence (atomic, once
 *    per agent: a replay writes nothing and answers 403); answer 200 only after the commit.
 * With shadow mode on, a policy violation (step 6) does not stop the order: the trace is SHADOW_HALTED.
 * A retry of an order that was authorized gets the original answer whatever heartbeat it carries: a spent
 * heartbeat is refused only when no order with this client_order_id was sealed.
 */
import { newTraceId } from './trace/id.js';
import { hashJson } from '../crypto/hash.js';
import { canonicalJsonOfPlain } from '../crypto/jcs-plain.js';
import { conflict, forbidden, TradesealError, validationError } from '../errors.js';
import type { Sql } from 'postgres';
import type { TokenRecord } from './store/tokens.js';
import { mayActFor } from './auth.js';
import type { EngineContext } from './context.js';
import { type DenialCode, type Verdict } from './denials.js';
import { checkHeartbeat, heartbeatSignatureValid, type SignedHeartbeat } from './heartbeat/check.js';
import { checkOrderRate, evaluatePolicy } from './policy/evaluate.js';
import { checkOpenExposure, checkValidTime } from './policy/exposure.js';
import { lockedOpenNotional } from './store/agents.js';
import { regulatoryKeyFor, storedRegulatory } from './ops/trace-personal.js';
import { findIdempotent, type AuthorizeResponse } from './store/idempotency.js';
import { orderSecond } from './store/rate-and-marks.js';
import { insertTrace, type InsertOutcome, type NewTrace } from './store/traces.js';
import { isoMs, TIME_SOURCE, type SealedTrace } from './trace/document.js';
import { latentFingerprint, newRegulatorySalt, reasoningHashOf, regulatoryCommitment, TRACE_VERSION, type RegulatoryBlock } from './trace/seal.js';
import { REGIME_LABELS, type OrderType, type TradeAction } from './vocabulary.js';

export type TaggedAction = TradeAction | { Long: number } | { Short: number };

export interface AuthorizeRequest {
  agent_id: string;
  model_hash_hex: string;
  model_id: string;
  prompt_version: string;
  feature_schema_id: string;
  hyperparameter_checksum: string;
  action: TaggedAction;
  asset: string;
  order_type: OrderType;
  venue_id: string;
  quantity: number;
  notional: number;
  client_order_id: string;
  agent_valid_time: number;
  limit_price?: number | null;
  stop_price?: number | null;
  multiplier?: number;
  notional_currency?: string;
  reduce_only?: boolean;
  heartbeat?: SignedHeartbeat | null;
  regulatory?: RegulatoryBlock | null;
}

const replayed = (sequenceId: number, agentId: string): TradesealError =>
  forbidden('heartbeat_replayed', `heartbeat sequence_id ${sequenceId} was already used or is not greater than the last one accepted from agent ${agentId}`);

/** A 403 whose `code` names the rule and whose `detail` carries the numbers. */
const denied = (code: DenialCode, detail: string): TradesealError => forbidden(code, detail);

/** The plain action; the externally tagged `{"Long": q}` form is accepted when q equals quantity. */
export function plainAction(action: TaggedAction, quantity: number): TradeAction {
  if (typeof action === 'string') return action;
  const [side, q] = Object.entries(action)[0] as [TradeAction, number];
  if (q !== quantity) throw validationError([{ field: `action.${side}`, message: `must equal quantity (${quantity}), got ${q}` }]);
  return side;
}

/** The idempotency key's order fields: everything but the heartbeat (a retry carries a fresh one). */
export function orderHash(req: AuthorizeRequest, action: TradeAction): string {
  const { heartbeat: _hb, ...order } = req;
  return hashJson({ ...order, action, limit_price: req.limit_price ?? null, stop_price: req.stop_price ?? null,
    multiplier: req.multiplier ?? 1, notional_currency: req.notional_currency ?? 'USD', reduce_only: req.reduce_only ?? false, regulatory: req.regulatory ?? null });
}

export async function authorize(ctx: EngineContext, principal: TokenRecord | undefined, req: AuthorizeRequest): Promise<AuthorizeResponse> {
  if (!mayActFor(principal, req.agent_id)) throw denied('agent_not_permitted', `this token may not act for agent ${req.agent_id}`);
  const action = plainAction(req.action, req.quantity);
  const hash = orderHash(req, action);
  const cfg = ctx.config;
  const hb = req.heartbeat ?? null;
  // The heartbeat's signature is verified on the thread pool while the store is asked (never rejects).
  const signatureCheck = hb ? heartbeatSignatureValid(hb, cfg.regimeOperatorPubkey) : Promise.resolve(false);

  const { prior, agent, lastSequence } = await ctx.batching.lookups.submit({ agentId: req.agent_id, clientOrderId: req.client_order_id, modelId: req.model_id, modelHashHex: req.model_hash_hex });
  if (prior) return replay(prior.order_hash, hash, prior.response as AuthorizeResponse, req.client_order_id);

  if (!agent || agent.status !== 'Active') {
    throw denied('agent_not_active', agent ? `agent ${req.agent_id} is ${agent.status}` : `agent ${req.agent_id} is not registered`);
  }
  if (agent.erased) throw denied('agent_not_active', `agent ${req.agent_id} was erased`);
  if (!agent.model_registered) {
    throw denied('model_not_registered', `model ${req.model_id} with hash ${req.model_hash_hex} is not approved for agent ${req.agent_id}`);
  }

  const now = ctx.now();
  const regime = ctx.state.regime;
  const validTime = checkValidTime(req.agent_valid_time, now, cfg.heartbeatReplayWindowMs);
  if (!validTime.ok) throw denied(validTime.code, validTime.detail);
  if (cfg.layer2Enabled && !hb) throw validationError([{ field: 'heartbeat', message: 'is required (LAYER2_ENABLED)' }]);
  const signatureValid = await signatureCheck;
  if (hb && cfg.layer2Enabled) {
    const v = checkHeartbeat(hb, signatureValid, {
      now, replayWindowMs: cfg.heartbeatReplayWindowMs, requireMtaRef: cfg.heartbeatRequireMtaRef,
      regime: regime ? { regime_id: regime.regime_id, hash: regime.hash } : null,
    });
    if (!v.ok) throw denied(v.code, v.detail);
    // A heartbeat already spent is refused before the policy is judged; the sealing statement re-checks
    // atomically (a concurrent request may spend it in between).
    if (lastSequence !== null && hb.sequence_id <= lastSequence) return spentHeartbeat(ctx.sql, req, hash, hb.sequence_id);
  }

  const policy = ctx.policy.document;
  const order = {
    action, asset: req.asset, order_type: req.order_type, venue_id: req.venue_id, quantity: req.quantity, notional: req.notional,
    notional_currency: req.notional_currency ?? 'USD', limit_price: req.limit_price ?? null, stop_price: req.stop_price ?? null,
    multiplier: req.multiplier ?? 1, reduce_only: req.reduce_only ?? false, agent_valid_time: req.agent_valid_time,
  };
  let verdict: Verdict = evaluatePolicy({
    order, agent: { max_notional: agent.max_notional, allowed_regimes: agent.allowed_regimes }, policy, now,
    regime: regime ? { regime: regime.regime, date: regime.date, effective_since_ms: regime.effective_since.getTime() } : null,
  });
  if (verdict.ok && policy.max_orders_per_second != null) verdict = checkOrderRate(policy, await ctx.batching.orderCounts.submit({ agentId: req.agent_id, second: orderSecond(now) }));
  const shadow = ctx.state.shadow.enabled;
  if (!verdict.ok && !shadow) throw denied(verdict.code, verdict.detail);

  // With a key-management provider the regulatory block is stored encrypted under the agent's data key (cached).
  const regulatoryKey = await regulatoryKeyFor(ctx.sql, ctx.keys, req.agent_id, req.regulatory != null);
  /** The sealed trace and the answer for the final verdict. */
  const seal = (final: Verdict): { row: NewTrace; response: AuthorizeResponse } => {
    const traceId = newTraceId(now);
    const rule = regime ? policy.regimes[regime.regime] : null;
    const sealed: SealedTrace = {
      trace_id: traceId,
      version: TRACE_VERSION,
      bitemporal: { valid_time: isoMs(req.agent_valid_time), txn_time: isoMs(now), time_source: TIME_SOURCE },
      mta: {
        regime_id: regime?.regime_id ?? null, regime_label: regime ? REGIME_LABELS[regime.regime] : null,
        risk_level: regime?.risk_score ?? null, max_notional_scale: rule?.max_notional_scale ?? null,
        allowed_sides: rule ? [...rule.allowed_sides] : null, version: regime?.model_version ?? null, hash: regime?.hash ?? null,
        signature_valid: signatureValid,
      },
      agent: { agent_id: req.agent_id, feature_schema_id: req.feature_schema_id,
        latent_fingerprint: latentFingerprint(req.model_id, req.prompt_version, req.feature_schema_id, req.hyperparameter_checksum) },
      execution: {
        action, asset: order.asset, order_type: order.order_type, venue_id: order.venue_id, client_order_id: req.client_order_id,
        notional_currency: order.notional_currency, quantity: order.quantity, notional: order.notional, multiplier: order.multiplier,
        limit_price: order.limit_price, stop_price: order.stop_price, reduce_only: order.reduce_only,
      },
      heartbeat: { sequence_id: hb?.sequence_id ?? null, signature_valid: signatureValid, drift_ms: hb ? now - hb.timestamp_ms : null },
      policy: { id: policy.id, version: policy.version, hash: ctx.policy.hash, result: final.ok ? 'PASS' : `FAIL:${final.code}` },
      regulatory: null,
    };
    const regulatory = req.regulatory ?? null;
    const salt = regulatory ? newRegulatorySalt() : null;
    if (regulatory && salt) sealed.regulatory = { commitment: regulatoryCommitment(salt, regulatory) };
    // Plain data (parsed JSON and the engine's own values): its canonical text in one walk, canonicalJson's text.
    const sealedText = canonicalJsonOfPlain(sealed);
    const reasoningHash = reasoningHashOf(sealedText);
    const response: AuthorizeResponse = { trace_id: traceId, reasoning_hash: reasoningHash, authorized: true, shadow_blocked: !final.ok };
    return {
      response,
      row: {
        trace_id: traceId, txn_time: new Date(now), agent_id: req.agent_id, client_order_id: req.client_order_id,
        status: final.ok ? 'PENDING' : 'SHADOW_HALTED', action, asset: req.asset, quantity: req.quantity, notional: req.notional,
        notional_currency: order.notional_currency, reasoning_hash: reasoningHash, sealed: sealedText, ...storedRegulatory(regulatoryKey, traceId, regulatory, salt),
        policy_result: sealed.policy.result, order_hash: hash, response,
      },
    };
  };

  const sequence = hb && cfg.layer2Enabled ? hb.sequence_id : null;
  let response: AuthorizeResponse | null = null;
  let outcome: InsertOutcome;
  const cap = agent.max_open_notional;
  if (cap === null) {
    const sealedTrace = seal(verdict);
    response = sealedTrace.response;
    outcome = await ctx.batching.seals.submit({ trace: sealedTrace.row, heartbeatSequence: sequence });
  } else {
    outcome = await ctx.sql.begin(async (t) => {
      const tx = t as unknown as Sql;
      const open = await lockedOpenNotional(tx, req.agent_id);
      // Under the agent's lock a retry whose original committed first is answered as a retry, not counted twice.
      if (await findIdempotent(tx, req.agent_id, req.client_order_id)) return 'duplicate' as const;
      const exposure = verdict.ok ? checkOpenExposure(open, req.notional, cap) : verdict;
      if (!exposure.ok && !shadow) throw denied(exposure.code, exposure.detail);
      const sealedTrace = seal(exposure);
      response = sealedTrace.response;
      return insertTrace(tx, sealedTrace.row, sequence);
    });
  }
  if (outcome === 'replayed') return spentHeartbeat(ctx.sql, req, hash, hb?.sequence_id ?? 0);
  if (outcome === 'duplicate') {
    // A concurrent request with the same client_order_id committed first: answer as its retry would be.
    const winner = await findIdempotent(ctx.sql, req.agent_id, req.client_order_id);
    if (!winner) throw new TradesealError('internal', 'idempotency record vanished');
    return replay(winner.order_hash, hash, winner.response, req.client_order_id);
  }
  if (!response) throw new TradesealError('internal', 'an inserted trace has no response');
  return response;
}

/**
 * A heartbeat already spent: refused, unless an order with this client_order_id was sealed meanwhile (a
 * concurrent retry carrying the same heartbeat won the race), in which case this is its retry.
 */
async function spentHeartbeat(sql: Sql, req: AuthorizeRequest, hash: string, sequenceId: number): Promise<AuthorizeResponse> {
  const winner = await findIdempotent(sql, req.agent_id, req.client_order_id);
  if (winner) return replay(winner.order_hash, hash, winner.response, req.client_order_id);
  throw replayed(sequenceId, req.agent_id);
}

function replay(storedHash: string, hash: string, response: AuthorizeResponse, clientOrderId: string): AuthorizeResponse {
  if (storedHash !== hash) {
    throw conflict('client_order_id_conflict', `client_order_id ${clientOrderId} was already used by this agent for a different order`);
  }
  return response;
}
