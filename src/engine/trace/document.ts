/**
 * The Reasoning_Trace_v1 document: built at authorize, sealed, and rebuilt for reading from the sealed
 * text plus the (separately stored) personal data and the bind outcome.
 *
 * Beyond the interface's layout (all additive, documented in the README): `execution.reduce_only` (the
 * agent's claim, sealed and audited), and in `integrity` the listing `status`, the `regulatory_commitment`,
 * `exchange_tx_id`, `divergence_reason`, `execution_time` and the erasure marks, so anyone holding a served
 * trace can recompute both hashes from it alone. Every field that is not sealed lives in `integrity`: the
 * served document without `integrity`, its `regulatory` replaced by `{commitment}` (or null when
 * `integrity.regulatory_commitment` is null), is exactly the sealed document.
 */
import type { RegulatoryBlock } from './seal.js';
import { TRACE_VERSION } from './seal.js';

export interface TraceDocument {
  trace_id: string;
  version: typeof TRACE_VERSION;
  bitemporal: { valid_time: string; txn_time: string; time_source: string };
  mta: {
    regime_id: number | null;
    regime_label: string | null;
    risk_level: number | null;
    max_notional_scale: number | null;
    allowed_sides: string[] | null;
    version: string | null;
    hash: string | null;
    signature_valid: boolean;
  };
  agent: { agent_id: string; feature_schema_id: string; latent_fingerprint: string };
  execution: {
    action: string;
    asset: string;
    order_type: string;
    venue_id: string;
    client_order_id: string;
    notional_currency: string;
    quantity: number;
    notional: number;
    multiplier: number;
    limit_price: number | null;
    stop_price: number | null;
    reduce_only: boolean;
  };
  heartbeat: { sequence_id: number | null; signature_valid: boolean; drift_ms: number | null };
  policy: { id: string; version: string; hash: string; result: string };
  regulatory: RegulatoryBlock | null;
}

/** The sealed form as stored: `regulatory` is the commitment, `integrity` is absent. */
export type SealedTrace = Omit<TraceDocument, 'regulatory'> & { regulatory: { commitment: string } | null };

export const TIME_SOURCE = 'engine_clock';

export const isoMs = (ms: number): string => new Date(ms).toISOString();
