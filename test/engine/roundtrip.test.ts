/** The agent round trip: register, token, regime, authorize, bind, read, verify. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/crypto/hash.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
beforeAll(async () => {
  h = await engineHarness();
});
afterAll(async () => h?.close());

describe('round trip', () => {
  it('authorizes, binds Matched, and verifies', async () => {
    const regime = await h.publishRegime('expansion');
    const { agent_id, token } = await h.registerAgent();
    const order = h.order(agent_id);
    const auth = await h.call('POST', '/engine/authorize', order, token);
    expect(auth.statusCode, auth.body).toBe(200);
    const a = auth.json();
    expect(a).toMatchObject({ authorized: true, shadow_blocked: false });
    expect(a.reasoning_hash).toMatch(/^[0-9a-f]{64}$/);

    const trace = (await h.call('GET', `/engine/trace/${a.trace_id}`, undefined, token)).json();
    expect(trace.version).toBe('Reasoning_Trace_v1');
    expect(trace.mta.hash).toBe(regime.hash);
    expect(trace.integrity).toMatchObject({ reasoning_hash: a.reasoning_hash, verification_status: 'Pending', final_proof: null });
    expect(trace.policy.result).toBe('PASS');

    const bind = await h.call(
      'POST',
      '/engine/bind-execution',
      {
        trace_id: a.trace_id,
        exchange_tx_id: 'X-1',
        execution_status: 'Filled',
        asset: 'AAPL',
        executed_quantity: 100,
        executed_side: 'Long',
      },
      token,
    );
    expect(bind.statusCode, bind.body).toBe(200);
    expect(bind.json()).toMatchObject({ verification_status: 'Matched', final_proof: sha256Hex(`${a.reasoning_hash}||X-1`), divergence_reason: null });

    const verify = (await h.call('GET', `/engine/trace/${a.trace_id}/verify`, undefined, token)).json();
    expect(verify.valid).toBe(true);
    expect(verify.final_proof.ok).toBe(true);
  });
});
