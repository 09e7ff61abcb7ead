/**
 * Request and response examples of the engine's main operations, shown in the OpenAPI document (and linted
 * against their schemas by Redocly's `no-invalid-media-type-examples`).
 *
 * They tell one story: an agent registered with one approved model, a client token for it, a manual regime
 * broadcast, an authorized limit order and its fill. The hashes are computed here with the engine's own
 * functions, so the example trace verifies like a real one: its `reasoning_hash` is the SHA-256 of the JCS
 * of its sealed form, its `final_proof` follows from that and the exchange_tx_id.
 */
import { hashJson, sha256Hex } from '../../core/crypto/hash.js';
import { broadcastHash, certainProbabilities } from '../../store/regime-broadcasts.js';
import { TIME_SOURCE } from '../../engine/trace/document.js';
import { finalProof, latentFingerprint, reasoningHashOf, sealedForm } from '../../engine/trace/seal.js';
import { canonicalJson } from '../../core/crypto/jcs.js';

const AGENT_ID = '6f1c2a9e-3b4d-4e8f-9a0b-1c2d3e4f5a6b';
const TRACE_ID = '0b1e6a36-7d0e-4c53-9b46-1f1a3f6b2c11';
const TOKEN_ID = 'c3a7e2d1-5f6b-4a8c-9d0e-2b1f3c4d5e6f';
const MODEL_HASH = sha256Hex('alpha-7 weights, version 2026-01');
const CREATED_AT = '2026-01-02T08:30:00.000Z';
const VALID_MS = Date.parse('2026-01-05T14:29:59.750Z');
const TXN_MS = Date.parse('2026-01-05T14:30:00.000Z');
const OWNER = `token:${'9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b'} (ops desk)`;

const regimeState = {
  date: '2026-01-05',
  regime: 'expansion' as const,
  regime_id: 0,
  risk_score: 0.2,
  probabilities: certainProbabilities('expansion'),
  model_version: 'manual',
};

export const regimeExample = {
  ...regimeState,
  hash: broadcastHash(regimeState),
  source: 'manual',
  reason: 'pipeline data delayed; holding expansion until the nightly run publishes',
  published_by: OWNER,
  published_at: '2026-01-05T07:00:00.000Z',
  effective_since: '2026-01-05T07:00:00.000Z',
  available_at: null,
};

export const publishRegimeRequestExample = { regime: 'expansion', risk_score: 0.2, reason: regimeExample.reason };

export const currentRegimeExample = {
  ...regimeExample,
  freshness: { date: '2026-01-05', data_complete_at: '2026-01-06T00:00:00.000Z', age_ms: -34_200_000, max_age_ms: 604_800_000, stale: false },
};

export const registerAgentRequestExample = {
  name: 'momentum-equities-eu',
  max_notional: 250_000,
  models: [{ model_id: 'alpha-7', model_hash_hex: MODEL_HASH }],
  allowed_regimes: ['expansion', 'recovery'],
  max_open_notional: 1_000_000,
};

export const agentExample = {
  agent_id: AGENT_ID,
  name: registerAgentRequestExample.name,
  status: 'Active',
  status_reason: null,
  max_notional: 250_000,
  allowed_regimes: ['expansion', 'recovery'],
  max_open_notional: 1_000_000,
  models: registerAgentRequestExample.models,
  created_at: CREATED_AT,
  erased: false,
  erased_at: null,
};

export const issueTokenRequestExample = { client_name: 'momentum-equities-eu executor', role: 'client', agent_ids: [AGENT_ID], ttl_days: 90 };

const tokenRecordExample = {
  token_id: TOKEN_ID,
  client_name: issueTokenRequestExample.client_name,
  role: 'client',
  agent_ids: [AGENT_ID],
  created_at: CREATED_AT,
  expires_at: '2026-04-02T08:30:00.000Z',
  revoked_at: null,
};

export const issuedTokenExample = { ...tokenRecordExample, token: 'tse_q3Jx0M2b8vN1cY7dR4tW6eK9pL5sA2hG0fU3iO8zX1E' };
export const tokenListExample = { count: 1, tokens: [tokenRecordExample] };
export const revokedTokenExample = { token_id: TOKEN_ID, revoked_at: '2026-01-06T09:15:00.000Z' };

export const authorizeRequestExample = {
  agent_id: AGENT_ID,
  model_hash_hex: MODEL_HASH,
  model_id: 'alpha-7',
  prompt_version: 'p-3',
  feature_schema_id: 'fs-1',
  hyperparameter_checksum: 'h-9',
  action: 'Long',
  asset: 'AAPL',
  order_type: 'Limit',
  venue_id: 'XNAS',
  quantity: 100,
  limit_price: 190,
  notional: 19_000,
  notional_currency: 'USD',
  client_order_id: 'ord-20260105-0042',
  agent_valid_time: VALID_MS,
};

const document = {
  trace_id: TRACE_ID,
  version: 'Reasoning_Trace_v1',
  bitemporal: { valid_time: new Date(VALID_MS).toISOString(), txn_time: new Date(TXN_MS).toISOString(), time_source: TIME_SOURCE },
  mta: {
    regime_id: 0,
    regime_label: 'Expansion',
    risk_level: 0.2,
    max_notional_scale: 1,
    allowed_sides: ['Long', 'Short', 'Neutral'],
    version: 'manual',
    hash: regimeExample.hash,
    signature_valid: false,
  },
  agent: { agent_id: AGENT_ID, feature_schema_id: 'fs-1', latent_fingerprint: latentFingerprint('alpha-7', 'p-3', 'fs-1', 'h-9') },
  execution: {
    action: 'Long',
    asset: 'AAPL',
    order_type: 'Limit',
    venue_id: 'XNAS',
    client_order_id: authorizeRequestExample.client_order_id,
    notional_currency: 'USD',
    quantity: 100,
    notional: 19_000,
    multiplier: 1,
    limit_price: 190,
    stop_price: null,
    reduce_only: false,
  },
  heartbeat: { sequence_id: null, signature_valid: false, drift_ms: null },
  policy: { id: 'tradeseal-default', version: '1.0.0', hash: hashJson({ id: 'tradeseal-default', version: '1.0.0' }), result: 'PASS' },
  regulatory: null,
};
const REASONING_HASH = reasoningHashOf(canonicalJson(sealedForm(document, null)));
const EXCHANGE_TX_ID = 'XNAS-20260105-7781234';
const FINAL_PROOF = finalProof(REASONING_HASH, EXCHANGE_TX_ID);

export const authorizeResponseExample = { trace_id: TRACE_ID, reasoning_hash: REASONING_HASH, authorized: true, shadow_blocked: false };

export const bindRequestExample = {
  trace_id: TRACE_ID,
  exchange_tx_id: EXCHANGE_TX_ID,
  execution_status: 'Filled',
  asset: 'AAPL',
  executed_quantity: 100,
  executed_side: 'Long',
  execution_price: 189.97,
  execution_time_ms: TXN_MS + 420,
};

export const bindResponseExample = {
  trace_id: TRACE_ID,
  final_proof: FINAL_PROOF,
  verification_status: 'Matched',
  execution_status: 'Filled',
  execution_time: new Date(TXN_MS + 420).toISOString(),
  divergence_reason: null,
};

export const traceExample = {
  ...document,
  integrity: {
    status: 'MATCHED',
    reasoning_hash: REASONING_HASH,
    verification_status: 'Matched',
    execution_status: 'Filled',
    final_proof: FINAL_PROOF,
    regulatory_commitment: null,
    regulatory_salt: null,
    exchange_tx_id: EXCHANGE_TX_ID,
    divergence_reason: null,
    execution_time: bindResponseExample.execution_time,
    reconciliation: {
      fills: [
        {
          exec_id: EXCHANGE_TX_ID,
          trade_date: bindResponseExample.execution_time.slice(0, 10),
          outcome: 'matched',
          differences: [],
          applied_at: new Date(TXN_MS + 640).toISOString(),
          orphan_trace_id: null,
        },
      ],
      resolved_by: null,
      resolved_at: null,
      resolved: [],
    },
  },
};

export const traceVerificationExample = {
  trace_id: TRACE_ID,
  valid: true,
  reasoning_hash: { stored: REASONING_HASH, recomputed: REASONING_HASH, ok: true },
  final_proof: { stored: FINAL_PROOF, recomputed: FINAL_PROOF, ok: true },
  checks: [
    { check: 'reasoning_hash', ok: true, detail: 'SHA-256 of the sealed text equals the stored reasoning_hash' },
    { check: 'canonical_form', ok: true, detail: 'the sealed text is in RFC 8785 canonical form' },
    { check: 'listing_columns', ok: true, detail: 'listing columns agree with the sealed trace' },
    { check: 'final_proof', ok: true, detail: 'SHA-256(reasoning_hash || "||" || exchange_tx_id) equals the stored final_proof' },
  ],
};

export const traceListingExample = {
  count: 1,
  has_more: false,
  traces: [
    {
      trace_id: TRACE_ID,
      agent_id: AGENT_ID,
      status: 'MATCHED',
      verification_status: 'Matched',
      action: 'Long',
      asset: 'AAPL',
      notional: 19_000,
      notional_currency: 'USD',
      txn_time: document.bitemporal.txn_time,
      reasoning_hash: REASONING_HASH,
      final_proof: FINAL_PROOF,
    },
  ],
};
