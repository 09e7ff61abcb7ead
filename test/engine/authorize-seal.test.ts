/**
 * The sealed trace, recomputed independently of the engine's own hashing code (the `canonicalize` package,
 * an RFC 8785 implementation by an author of the RFC, and node:crypto's SHA-256), per
 * docs/decisions/0006-sealed-hashes.md:
 * - reasoning_hash = SHA-256(JCS(trace − integrity − status, regulatory → {commitment} or null));
 * - latent_fingerprint = SHA-256(JCS([model_id, prompt_version, feature_schema_id, hyperparameter_checksum]));
 * - policy.hash = SHA-256(JCS(policy document)); mta.hash = the hash GET /engine/regime shows.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const jcs = (value: unknown): string => {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('no canonical form');
  return text;
};

/** The reasoning hash of a fetched trace, recomputed from the document alone. */
function recomputeReasoningHash(trace: Record<string, unknown>): string {
  const { integrity, ...rest } = trace as { integrity: { regulatory_commitment: string | null } };
  const commitment = integrity.regulatory_commitment;
  return sha256(jcs({ ...rest, regulatory: commitment === null ? null : { commitment } }));
}

const POLICY_OVERRIDE = { max_quantity: 250_000, allowed_venues: ['XNAS', 'XNYS'] };

let h: EngineHarness;
let agentId: string;
let token: string;
beforeAll(async () => {
  h = await engineHarness({ policy: POLICY_OVERRIDE });
  await h.publishRegime('recovery', 0.35);
  ({ agent_id: agentId, token } = await h.registerAgent());
});
afterAll(async () => h?.close());

async function authorizeAndFetch(
  overrides: Record<string, unknown> = {},
): Promise<{ response: Record<string, unknown>; trace: Record<string, any>; order: Record<string, unknown> }> {
  const order = h.order(agentId, overrides);
  const res = await h.call('POST', '/engine/authorize', order, token);
  expect(res.statusCode, res.body).toBe(200);
  const response = res.json();
  const fetched = await h.call('GET', `/engine/trace/${response.trace_id}`, undefined, token);
  expect(fetched.statusCode, fetched.body).toBe(200);
  return { response, trace: fetched.json(), order };
}

describe('reasoning_hash', () => {
  it('equals SHA-256 of the JCS of the fetched trace without integrity and status (no regulatory block)', async () => {
    const { response, trace } = await authorizeAndFetch();
    expect(trace.regulatory).toBeNull();
    expect(trace.integrity.regulatory_commitment).toBeNull();
    expect(recomputeReasoningHash(trace)).toBe(response.reasoning_hash);
    expect(trace.integrity.reasoning_hash).toBe(response.reasoning_hash);
  });

  it('covers the regulatory block through its commitment; the block itself is returned as supplied', async () => {
    const regulatory = { mifid_algo_id: 'ALGO-7', mifid_decision_maker: 'Jane Doe', cftc_cti_code: null, jurisdiction: 'EU' };
    const { response, trace } = await authorizeAndFetch({ regulatory });
    expect(trace.regulatory).toEqual(regulatory);
    expect(trace.integrity.regulatory_commitment).toMatch(/^[0-9a-f]{64}$/);
    expect(recomputeReasoningHash(trace)).toBe(response.reasoning_hash);
    // The plaintext is not what is hashed: hashing it in place of the commitment gives another value.
    const { integrity: _i, ...rest } = trace;
    expect(sha256(jcs(rest))).not.toBe(response.reasoning_hash);
  });

  it('differs between two identical orders (trace_id, salt) and any edit of the document breaks it', async () => {
    const a = await authorizeAndFetch();
    const b = await authorizeAndFetch();
    expect(a.response.reasoning_hash).not.toBe(b.response.reasoning_hash);
    const edited = structuredClone(a.trace);
    edited.execution.quantity = 101;
    expect(recomputeReasoningHash(edited)).not.toBe(a.response.reasoning_hash);
  });

  it('is confirmed by the verify endpoint', async () => {
    const { response } = await authorizeAndFetch({ regulatory: { jurisdiction: 'US', cat_order_id: 'CAT-1' } });
    const verify = (await h.call('GET', `/engine/trace/${String(response.trace_id)}/verify`, undefined, token)).json();
    expect(verify.valid).toBe(true);
    expect(verify.reasoning_hash).toEqual({ stored: response.reasoning_hash, recomputed: response.reasoning_hash, ok: true });
  });
});

describe('agent.latent_fingerprint', () => {
  it('equals SHA-256(JCS([model_id, prompt_version, feature_schema_id, hyperparameter_checksum]))', async () => {
    const { trace, order } = await authorizeAndFetch({ prompt_version: 'p-\u00e9\u{1F600}', hyperparameter_checksum: 'h"9' });
    const expected = sha256(jcs([order.model_id, order.prompt_version, order.feature_schema_id, order.hyperparameter_checksum]));
    expect(trace.agent).toEqual({ agent_id: agentId, feature_schema_id: 'fs-1', latent_fingerprint: expected });
  });

  it('does not cover model_hash_hex, and changes with each of the four components', async () => {
    const base = (await authorizeAndFetch()).trace.agent.latent_fingerprint;
    for (const change of [{ model_id: 'alpha-8' }, { prompt_version: 'p-4' }, { feature_schema_id: 'fs-2' }, { hyperparameter_checksum: 'h-10' }]) {
      if ('model_id' in change) {
        await h.call('POST', `/engine/admin/agents/${agentId}/models`, { model_id: 'alpha-8', model_hash_hex: 'a'.repeat(64) });
      }
      expect((await authorizeAndFetch(change)).trace.agent.latent_fingerprint, JSON.stringify(change)).not.toBe(base);
    }
    await h.call('POST', `/engine/admin/agents/${agentId}/models`, { model_id: 'alpha-7', model_hash_hex: 'f'.repeat(64) });
    expect((await authorizeAndFetch({ model_hash_hex: 'f'.repeat(64) })).trace.agent.latent_fingerprint).toBe(base);
  });
});

describe('policy and mta', () => {
  it('policy.hash equals SHA-256(JCS(policy document in force)), and id/version come from the document', async () => {
    const file = JSON.parse(readFileSync('data/policy/default.json', 'utf8')) as Record<string, unknown>;
    const document = { ...file, ...POLICY_OVERRIDE };
    const { trace } = await authorizeAndFetch();
    expect(trace.policy).toEqual({ id: file.id, version: file.version, hash: sha256(jcs(document)), result: 'PASS' });
  });

  it('mta.hash equals GET /engine/regime hash, which is SHA-256(JCS of the broadcast fields)', async () => {
    const regime = (await h.call('GET', '/engine/regime', undefined, token)).json();
    const { date, regime: name, regime_id, risk_score, probabilities, model_version } = regime;
    expect(regime.hash).toBe(sha256(jcs({ date, regime: name, regime_id, risk_score, probabilities, model_version })));
    const { trace } = await authorizeAndFetch();
    expect(trace.mta).toEqual({
      regime_id: 1,
      regime_label: 'Recovery',
      risk_level: 0.35,
      max_notional_scale: 0.75,
      allowed_sides: ['Long', 'Short', 'Neutral'],
      version: model_version,
      hash: regime.hash,
      signature_valid: false,
    });
  });
});

describe('the document', () => {
  it('carries the Reasoning_Trace_v1 layout with the order as sealed and the bitemporal times', async () => {
    h.clock.now += 1234;
    const validTime = h.clock.now - 5_000;
    const { response, trace, order } = await authorizeAndFetch({
      order_type: 'StopLimit',
      limit_price: 190,
      stop_price: 189.5,
      multiplier: 1,
      agent_valid_time: validTime,
      venue_id: 'XNYS',
    });
    expect(Object.keys(trace).sort()).toEqual([
      'agent',
      'bitemporal',
      'execution',
      'heartbeat',
      'integrity',
      'mta',
      'policy',
      'regulatory',
      'trace_id',
      'version',
    ]);
    expect(trace.trace_id).toBe(response.trace_id);
    expect(trace.version).toBe('Reasoning_Trace_v1');
    expect(trace.integrity.status).toBe('PENDING');
    expect(trace.bitemporal).toEqual({
      valid_time: new Date(validTime).toISOString(),
      txn_time: new Date(h.clock.now).toISOString(),
      time_source: 'engine_clock',
    });
    expect(trace.execution).toEqual({
      action: 'Long',
      asset: 'AAPL',
      order_type: 'StopLimit',
      venue_id: 'XNYS',
      client_order_id: order.client_order_id,
      notional_currency: 'USD',
      quantity: 100,
      notional: 19_000,
      multiplier: 1,
      limit_price: 190,
      stop_price: 189.5,
      reduce_only: false,
    });
    expect(trace.heartbeat).toEqual({ sequence_id: null, signature_valid: false, drift_ms: null });
    expect(trace.integrity).toMatchObject({ verification_status: 'Pending', execution_status: null, final_proof: null });
  });

  it('defaults are sealed explicitly: multiplier 1, notional_currency USD, null prices for a Market order, reduce_only false', async () => {
    const { trace } = await authorizeAndFetch({ order_type: 'Market', limit_price: undefined });
    expect(trace.execution).toMatchObject({ multiplier: 1, notional_currency: 'USD', limit_price: null, stop_price: null, reduce_only: false });
  });
});
