/**
 * The sealed trace of an authorized order, and the answer authorize gives for it: pure, from what authorize
 * judged (the order, the regime in force, the policy, the heartbeat and the final verdict) and the clock.
 */
import { canonicalWriter } from '../../core/crypto/jcs-shape.js';
import type { Verdict } from '../denials.js';
import type { SignedHeartbeat } from '../heartbeat/check.js';
import type { OrderFacts } from '../policy/evaluate.js';
import type { Policy } from '../policy/policy.js';
import { storedRegulatory } from '../ops/trace-personal.js';
import type { AuthorizeResponse } from '../store/idempotency.js';
import type { RegimeBroadcast } from '../../store/regime-broadcasts.js';
import type { NewTrace } from '../store/traces.js';
import { REGIME_LABELS } from '../../core/vocabulary.js';
import { isoMs, TIME_SOURCE, type SealedTrace } from './document.js';
import { newTraceId } from '../../core/trace-id.js';
import { latentFingerprint, newRegulatorySalt, reasoningHashOf, regulatoryCommitment, TRACE_VERSION, type RegulatoryBlock } from './seal.js';

/** What a trace seals, besides the verdict. */
export interface TraceFacts {
  now: number;
  agentId: string;
  modelId: string;
  promptVersion: string;
  featureSchemaId: string;
  hyperparameterChecksum: string;
  clientOrderId: string;
  order: OrderFacts;
  regime: RegimeBroadcast | null;
  policy: Policy;
  heartbeat: SignedHeartbeat | null;
  signatureValid: boolean;
  regulatory: RegulatoryBlock | null;
  /** The agent's data key when the regulatory block is stored encrypted. */
  regulatoryKey: Buffer | null;
  orderHash: string;
}

/** The sealed trace's members (document.ts): its canonical text is written in one pass, without sorting. */
const sealedText = canonicalWriter({
  trace_id: null,
  version: null,
  bitemporal: { valid_time: null, txn_time: null, time_source: null },
  mta: {
    regime_id: null,
    regime_label: null,
    risk_level: null,
    max_notional_scale: null,
    allowed_sides: null,
    version: null,
    hash: null,
    signature_valid: null,
  },
  agent: { agent_id: null, feature_schema_id: null, latent_fingerprint: null },
  execution: {
    action: null,
    asset: null,
    order_type: null,
    venue_id: null,
    client_order_id: null,
    notional_currency: null,
    quantity: null,
    notional: null,
    multiplier: null,
    limit_price: null,
    stop_price: null,
    reduce_only: null,
  },
  heartbeat: { sequence_id: null, signature_valid: null, drift_ms: null },
  policy: { id: null, version: null, hash: null, result: null },
  regulatory: { commitment: null },
});

/** The trace row to store and the answer, for the final verdict: PASS, or a violation sealed under shadow mode. */
export function buildTrace(f: TraceFacts, final: Verdict): { row: NewTrace; response: AuthorizeResponse } {
  const { now, regime, order } = f;
  const policy = f.policy.document;
  const traceId = newTraceId(now);
  const rule = regime ? policy.regimes[regime.regime] : null;
  const hb = f.heartbeat;
  const sealed: SealedTrace = {
    trace_id: traceId,
    version: TRACE_VERSION,
    bitemporal: { valid_time: isoMs(order.agent_valid_time), txn_time: isoMs(now), time_source: TIME_SOURCE },
    mta: {
      regime_id: regime?.regime_id ?? null,
      regime_label: regime ? REGIME_LABELS[regime.regime] : null,
      risk_level: regime?.risk_score ?? null,
      max_notional_scale: rule?.max_notional_scale ?? null,
      allowed_sides: rule ? [...rule.allowed_sides] : null,
      version: regime?.model_version ?? null,
      hash: regime?.hash ?? null,
      signature_valid: f.signatureValid,
    },
    agent: {
      agent_id: f.agentId,
      feature_schema_id: f.featureSchemaId,
      latent_fingerprint: latentFingerprint(f.modelId, f.promptVersion, f.featureSchemaId, f.hyperparameterChecksum),
    },
    execution: {
      action: order.action,
      asset: order.asset,
      order_type: order.order_type,
      venue_id: order.venue_id,
      client_order_id: f.clientOrderId,
      notional_currency: order.notional_currency,
      quantity: order.quantity,
      notional: order.notional,
      multiplier: order.multiplier,
      limit_price: order.limit_price,
      stop_price: order.stop_price,
      reduce_only: order.reduce_only,
    },
    heartbeat: { sequence_id: hb?.sequence_id ?? null, signature_valid: f.signatureValid, drift_ms: hb ? now - hb.timestamp_ms : null },
    policy: { id: policy.id, version: policy.version, hash: f.policy.hash, result: final.ok ? 'PASS' : `FAIL:${final.code}` },
    regulatory: null,
  };
  const regulatory = f.regulatory;
  const salt = regulatory ? newRegulatorySalt() : null;
  if (regulatory && salt) sealed.regulatory = { commitment: regulatoryCommitment(salt, regulatory) };
  // Plain data of a known shape (parsed JSON and the engine's own values): canonicalJson's text, in one pass.
  const text = sealedText(sealed);
  const reasoningHash = reasoningHashOf(text);
  const response: AuthorizeResponse = { trace_id: traceId, reasoning_hash: reasoningHash, authorized: true, shadow_blocked: !final.ok };
  return {
    response,
    row: {
      trace_id: traceId,
      txn_time: new Date(now),
      agent_id: f.agentId,
      client_order_id: f.clientOrderId,
      status: final.ok ? 'PENDING' : 'SHADOW_HALTED',
      action: order.action,
      asset: order.asset,
      quantity: order.quantity,
      notional: order.notional,
      notional_currency: order.notional_currency,
      reasoning_hash: reasoningHash,
      sealed: text,
      ...storedRegulatory(f.regulatoryKey, traceId, regulatory, salt),
      policy_result: sealed.policy.result,
      order_hash: f.orderHash,
      response,
    },
  };
}
