/**
 * The ORPHAN trace of an execution that no trace authorized: a Reasoning_Trace_v1 document holding what the
 * drop copy says and nothing it does not, sealed like any trace, so `verify` recomputes its hashes the same way.
 *
 * - `bitemporal`: `valid_time` is the exchange's `execution_time` (to the millisecond), `txn_time` the engine's
 *   clock when the reconciliation recorded it, `time_source` `exchange_drop_copy`.
 * - `mta`: every field null, `signature_valid` false: no regime was consulted.
 * - `agent`: the drop copy's `agent_id`; `feature_schema_id` and `latent_fingerprint` null: no model declared.
 * - `execution`: `action` the side, `asset`, `quantity`, `notional` = quantity × price, `notional_currency`
 *   (default USD), `multiplier` 1, `client_order_id` as given or null; `order_type`, `venue_id`, `limit_price`
 *   and `stop_price` null; `reduce_only` false (no claim was made).
 * - `heartbeat`: `sequence_id` and `drift_ms` null, `signature_valid` false.
 * - `policy`: the policy in force when recorded, `result` `UNAUTHORIZED`.
 * - `regulatory`: null.
 * - `reconciliation` (beyond the interface's layout): `{source: "exchange_drop_copy", exchange_tx_id, price,
 *   execution_time}`, so the sealed text binds the execution it records.
 * `reasoning_hash` = SHA-256 of its JCS; `final_proof` = SHA-256(reasoning_hash ‖ "||" ‖ exchange_tx_id), as for
 * a bound trace.
 */
import { canonicalJsonOfPlain } from '../../core/crypto/jcs-plain.js';
import type { Policy } from '../policy/policy.js';
import { finalProof, reasoningHashOf, TRACE_VERSION } from '../trace/seal.js';
import type { DropCopyExecution } from './schema.js';

export const ORPHAN_TIME_SOURCE = 'exchange_drop_copy';
export const ORPHAN_POLICY_RESULT = 'UNAUTHORIZED';
export const DEFAULT_CURRENCY = 'USD';

export interface SealedOrphan {
  trace_id: string;
  txn_time: Date;
  execution_time: Date;
  execution: DropCopyExecution;
  notional: number;
  notional_currency: string;
  client_order_id: string | null;
  sealed: string;
  reasoning_hash: string;
  final_proof: string;
}

export function sealOrphan(execution: DropCopyExecution, traceId: string, txnTime: Date, policy: Policy): SealedOrphan {
  const executionTime = new Date(execution.execution_time);
  const notional = execution.quantity * execution.price;
  const currency = execution.notional_currency ?? DEFAULT_CURRENCY;
  const clientOrderId = execution.client_order_id ?? null;
  const doc = {
    trace_id: traceId,
    version: TRACE_VERSION,
    bitemporal: { valid_time: executionTime.toISOString(), txn_time: txnTime.toISOString(), time_source: ORPHAN_TIME_SOURCE },
    mta: {
      regime_id: null,
      regime_label: null,
      risk_level: null,
      max_notional_scale: null,
      allowed_sides: null,
      version: null,
      hash: null,
      signature_valid: false,
    },
    agent: { agent_id: execution.agent_id.toLowerCase(), feature_schema_id: null, latent_fingerprint: null },
    execution: {
      action: execution.side,
      asset: execution.asset,
      order_type: null,
      venue_id: null,
      client_order_id: clientOrderId,
      notional_currency: currency,
      quantity: execution.quantity,
      notional,
      multiplier: 1,
      limit_price: null,
      stop_price: null,
      reduce_only: false,
    },
    heartbeat: { sequence_id: null, signature_valid: false, drift_ms: null },
    policy: { id: policy.document.id, version: policy.document.version, hash: policy.hash, result: ORPHAN_POLICY_RESULT },
    regulatory: null,
    reconciliation: {
      source: ORPHAN_TIME_SOURCE,
      exchange_tx_id: execution.exchange_tx_id,
      price: execution.price,
      execution_time: executionTime.toISOString(),
    },
  };
  // The document is plain data: its canonical text by the fast path (the same text as canonicalJson's).
  const sealed = canonicalJsonOfPlain(doc);
  const reasoningHash = reasoningHashOf(sealed);
  return {
    trace_id: traceId,
    txn_time: txnTime,
    execution_time: executionTime,
    execution,
    notional,
    notional_currency: currency,
    client_order_id: clientOrderId,
    sealed,
    reasoning_hash: reasoningHash,
    final_proof: finalProof(reasoningHash, execution.exchange_tx_id),
  };
}
