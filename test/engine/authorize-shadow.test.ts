/**
 * Shadow mode (dry-run): a policy violation does not stop the order; authorize answers 200
 * `{authorized: true, shadow_blocked: true}`, the trace is SHADOW_HALTED with `policy.result = FAIL:<code>` and
 * is listed by shadow-violations. Registry failures and token scope are never shadowed
 * (docs/decisions/0009-shadow-mode.md).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
beforeAll(async () => {
  h = await engineHarness({ policy: { max_quantity: 5_000 } });
  await h.publishRegime('tightening');
});
afterAll(async () => h?.close());

const setShadow = async (enabled: boolean): Promise<void> => {
  const res = await h.call('POST', '/engine/admin/shadow-mode', { enabled, reason: 'policy rollout' });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json()).toMatchObject({ enabled, reason: 'policy rollout' });
};

const listed = async (url: string): Promise<string[]> => {
  const res = await h.call('GET', url);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().traces as Array<{ trace_id: string }>).map((t) => t.trace_id);
};

describe('shadow mode on', () => {
  beforeAll(async () => setShadow(true));
  afterAll(async () => setShadow(false));

  // Each case violates exactly one rule in the tightening regime (scale 0.5 of 200000 = 100000).
  const violations: Array<[string, Record<string, unknown>]> = [
    ['notional_cap_exceeded', { quantity: 1000, limit_price: 100.01, notional: 100_010 }],
    ['currency_not_allowed', { notional_currency: 'SEK' }],
    ['notional_inconsistent', { notional: 25_000 }],
    ['quantity_cap_exceeded', { quantity: 5_001, limit_price: 1, notional: 5_001 }],
    ['agent_valid_time_lag', { agent_valid_time: 0 }],
  ];
  for (const [code, overrides] of violations) {
    it(`${code}: answers 200 shadow_blocked, seals SHADOW_HALTED with policy.result FAIL:${code}, listed by shadow-violations`, async () => {
      const { agent_id, token } = await h.registerAgent();
      const res = await h.call('POST', '/engine/authorize', h.order(agent_id, overrides), token);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ authorized: true, shadow_blocked: true });
      expect(body.reasoning_hash).toMatch(/^[0-9a-f]{64}$/);

      const trace = (await h.call('GET', `/engine/trace/${body.trace_id}`)).json();
      expect(trace.integrity.status).toBe('SHADOW_HALTED');
      expect(trace.policy.result).toBe(`FAIL:${code}`);
      expect(trace.integrity).toMatchObject({ reasoning_hash: body.reasoning_hash, verification_status: 'Pending', final_proof: null });

      expect(await listed('/engine/shadow-violations')).toContain(body.trace_id);
      expect(await listed('/engine/traces?status=SHADOW_HALTED')).toContain(body.trace_id);
      expect(await listed('/engine/traces?status=PENDING')).not.toContain(body.trace_id);
    });
  }

  it('an order that passes is PENDING with shadow_blocked false and policy.result PASS, not a shadow violation', async () => {
    const { agent_id, token } = await h.registerAgent();
    const res = await h.call('POST', '/engine/authorize', h.order(agent_id), token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ authorized: true, shadow_blocked: false });
    const trace = (await h.call('GET', `/engine/trace/${res.json().trace_id}`)).json();
    expect(trace.integrity.status).toBe('PENDING');
    expect(trace.policy.result).toBe('PASS');
    expect(await listed('/engine/shadow-violations')).not.toContain(res.json().trace_id);
  });

  it('a shadow-halted order is idempotent: its retry returns the same shadow_blocked response', async () => {
    const { agent_id, token } = await h.registerAgent();
    const order = h.order(agent_id, { notional_currency: 'SEK' });
    const first = (await h.call('POST', '/engine/authorize', order, token)).json();
    const again = await h.call('POST', '/engine/authorize', order, token);
    expect(again.json()).toEqual(first);
    expect(first.shadow_blocked).toBe(true);
  });

  it('agent_not_active stays 403 in shadow mode (unknown and suspended agents), and nothing is sealed', async () => {
    const unknown = randomUUID();
    const res = await h.call('POST', '/engine/authorize', h.order(unknown));
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json().code).toBe('agent_not_active');

    const { agent_id, token } = await h.registerAgent();
    await h.call('PATCH', `/engine/admin/agents/${agent_id}/status`, { status: 'Suspended' });
    const suspended = await h.call('POST', '/engine/authorize', h.order(agent_id), token);
    expect(suspended.statusCode).toBe(403);
    expect(suspended.json().code).toBe('agent_not_active');
    expect(await listed(`/engine/traces?agent_id=${agent_id}`)).toEqual([]);
  });

  it('model_not_registered stays 403 in shadow mode', async () => {
    const { agent_id, token } = await h.registerAgent();
    const res = await h.call('POST', '/engine/authorize', h.order(agent_id, { model_hash_hex: 'e'.repeat(64) }), token);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('model_not_registered');
  });

  it('agent_not_permitted stays 403 in shadow mode', async () => {
    const a = await h.registerAgent();
    const b = await h.registerAgent();
    const res = await h.call('POST', '/engine/authorize', h.order(b.agent_id), a.token);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('agent_not_permitted');
  });

  it('validation failures stay 422 in shadow mode', async () => {
    const { agent_id, token } = await h.registerAgent();
    const res = await h.call('POST', '/engine/authorize', h.order(agent_id, { quantity: 0 }), token);
    expect(res.statusCode).toBe(422);
  });

  it('GET shadow-mode reports it on', async () => {
    const res = await h.call('GET', '/engine/admin/shadow-mode');
    expect(res.json()).toMatchObject({ enabled: true, reason: 'policy rollout' });
    expect(res.json().changed_by).toMatch(/^token:/);
  });
});

describe('shadow mode off again', () => {
  it('a violation is a 403 again once shadow mode is turned off', async () => {
    await setShadow(true);
    await setShadow(false);
    const { agent_id, token } = await h.registerAgent();
    const res = await h.call('POST', '/engine/authorize', h.order(agent_id, { notional_currency: 'SEK' }), token);
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json().code).toBe('currency_not_allowed');
    expect(await listed(`/engine/traces?agent_id=${agent_id}`)).toEqual([]);
  });
});
