/**
 * `GET /engine/trace/{trace_id}`: the Reasoning_Trace_v1 layout, block by block, with every hash
 * recomputed here from first principles (node:crypto and the `canonicalize` JCS package), and the 404, 422,
 * 401 and 403 answers.
 */
import { createHash, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, MODEL_HASH, type EngineHarness } from '../helpers/engine.js';

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const jcs = (value: unknown): string => {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('no canonical form');
  return text;
};

let h: EngineHarness;
let agent: { agent_id: string; token: string };
let regime: { hash: string; regime_id: number };

beforeAll(async () => {
  h = await engineHarness();
  regime = await h.publishRegime('expansion', 0.2);
  agent = await h.registerAgent();
});
afterAll(async () => h?.close());

const regulatory = {
  mifid_algo_id: 'ALGO-7',
  mifid_decision_maker: 'Jane Trader',
  cftc_cti_code: 'CTI-2',
  cftc_account_type: null,
  cat_order_id: 'CAT-99',
  jurisdiction: 'EU',
};

describe('GET /engine/trace/{trace_id}', () => {
  it('returns every block of the Reasoning_Trace_v1 layout with the sealed values', async () => {
    const validTime = h.clock.now - 500;
    const heartbeat = h.heartbeat(7, { timestamp_ms: h.clock.now - 40 });
    const order = h.order(agent.agent_id, { heartbeat, regulatory, agent_valid_time: validTime, multiplier: 1, notional_currency: 'USD' });
    const auth = await h.call('POST', '/engine/authorize', order, agent.token);
    expect(auth.statusCode, auth.body).toBe(200);
    const a = auth.json();
    const txnTime = h.clock.now;

    const res = await h.call('GET', `/engine/trace/${a.trace_id}`, undefined, agent.token);
    expect(res.statusCode, res.body).toBe(200);
    const doc = res.json();

    expect(Object.keys(doc).sort()).toEqual([
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
    expect(doc.trace_id).toBe(a.trace_id);
    expect(doc.version).toBe('Reasoning_Trace_v1');
    expect(doc.integrity.status).toBe('PENDING');

    expect(doc.bitemporal).toEqual({
      valid_time: new Date(validTime).toISOString(),
      txn_time: new Date(txnTime).toISOString(),
      time_source: expect.any(String),
    });
    expect(doc.bitemporal.time_source.length).toBeGreaterThan(0);

    expect(doc.mta).toEqual({
      regime_id: 0,
      regime_label: 'Expansion',
      risk_level: 0.2,
      max_notional_scale: 1,
      allowed_sides: ['Long', 'Short', 'Neutral'],
      version: 'manual',
      hash: regime.hash,
      signature_valid: true,
    });
    expect(doc.mta.risk_level).toBeGreaterThanOrEqual(0);
    expect(doc.mta.risk_level).toBeLessThanOrEqual(1);

    expect(doc.agent).toEqual({
      agent_id: agent.agent_id,
      feature_schema_id: 'fs-1',
      latent_fingerprint: sha256(jcs(['alpha-7', 'p-3', 'fs-1', 'h-9'])),
    });
    // model_hash_hex is checked against the registry, not fingerprinted.
    expect(doc.agent.latent_fingerprint).not.toBe(sha256(jcs([MODEL_HASH, 'alpha-7', 'p-3', 'fs-1', 'h-9'])));

    expect(doc.execution).toMatchObject({
      action: 'Long',
      asset: 'AAPL',
      order_type: 'Limit',
      venue_id: 'XNAS',
      client_order_id: order.client_order_id,
      notional_currency: 'USD',
      quantity: 100,
      notional: 19_000,
      multiplier: 1,
      limit_price: 190,
      stop_price: null,
    });

    expect(doc.heartbeat).toEqual({ sequence_id: 7, signature_valid: true, drift_ms: 40 });

    expect(doc.policy).toEqual({ id: 'tradeseal-default', version: '1.0.0', hash: sha256(jcs(h.ctx.policy.document)), result: 'PASS' });

    expect(doc.regulatory).toEqual(regulatory);

    expect(doc.integrity).toMatchObject({ reasoning_hash: a.reasoning_hash, verification_status: 'Pending', execution_status: null, final_proof: null });
    const [row] = await h.store.sql`select regulatory_salt from traces where trace_id = ${a.trace_id}`;
    const salt = row!.regulatory_salt as Buffer;
    expect(salt).toHaveLength(32);
    const commitment = sha256(Buffer.concat([salt, Buffer.from(jcs(regulatory), 'utf8')]));
    expect(doc.integrity.regulatory_commitment).toBe(commitment);

    // reasoning_hash = SHA-256(JCS(document without integrity, regulatory replaced by its commitment)).
    const { integrity: _i, regulatory: _r, ...rest } = doc;
    expect(sha256(jcs({ ...rest, regulatory: { commitment } }))).toBe(a.reasoning_hash);
  });

  it('a trace without heartbeat or regulatory block: nulls, and the hash over regulatory: null', async () => {
    const a = (await h.call('POST', '/engine/authorize', h.order(agent.agent_id, { order_type: 'Market', limit_price: null }), agent.token)).json();
    const doc = (await h.call('GET', `/engine/trace/${a.trace_id}`, undefined, agent.token)).json();
    expect(doc.regulatory).toBeNull();
    expect(doc.integrity.regulatory_commitment).toBeNull();
    expect(doc.heartbeat).toEqual({ sequence_id: null, signature_valid: false, drift_ms: null });
    expect(doc.mta.signature_valid).toBe(false);
    expect(doc.execution).toMatchObject({ order_type: 'Market', limit_price: null, stop_price: null, multiplier: 1, notional_currency: 'USD' });
    const { integrity: _i, ...sealed } = doc;
    expect(sha256(jcs(sealed))).toBe(a.reasoning_hash);
  });

  it('after bind, integrity carries execution_status, final_proof and the verification status', async () => {
    const a = (await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token)).json();
    await h.call(
      'POST',
      '/engine/bind-execution',
      { trace_id: a.trace_id, exchange_tx_id: 'TX-doc', execution_status: 'Partial', executed_quantity: 40 },
      agent.token,
    );
    const doc = (await h.call('GET', `/engine/trace/${a.trace_id}`, undefined, agent.token)).json();
    expect(doc.integrity.status).toBe('MATCHED');
    expect(doc.integrity).toMatchObject({
      reasoning_hash: a.reasoning_hash,
      verification_status: 'Matched',
      execution_status: 'Partial',
      final_proof: sha256(`${a.reasoning_hash}||TX-doc`),
      exchange_tx_id: 'TX-doc',
    });
  });

  it('404 for an unknown trace id', async () => {
    const res = await h.call('GET', `/engine/trace/${randomUUID()}`, undefined, agent.token);
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('not_found');
  });

  it.each(['not-a-uuid', '12345', 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz', `${randomUUID()}x`])('422 for the malformed id %s', async (id) => {
    const res = await h.call('GET', `/engine/trace/${id}`, undefined, agent.token);
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('validation_failed');
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain('trace_id');
  });

  it('401 without a token, 403 for a token bound to another agent', async () => {
    const a = (await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token)).json();
    expect((await h.call('GET', `/engine/trace/${a.trace_id}`, undefined, null)).statusCode).toBe(401);
    const other = await h.registerAgent();
    const res = await h.call('GET', `/engine/trace/${a.trace_id}`, undefined, other.token);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('agent_not_permitted');
    expect(res.body).not.toContain(a.reasoning_hash);
    // The owner reads every trace.
    expect((await h.call('GET', `/engine/trace/${a.trace_id}`)).statusCode).toBe(200);
  });
});
