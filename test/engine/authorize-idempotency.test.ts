/**
 * Idempotency of authorize on (agent_id, client_order_id): a retry of the same order returns the original
 * response and stores no second trace; the same id with other order fields is a 409
 * `client_order_id_conflict`; concurrent duplicates resolve to one trace (docs/decisions/0008-idempotency.md).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
beforeAll(async () => {
  h = await engineHarness({ max: 20 });
  await h.publishRegime('expansion');
});
afterAll(async () => h?.close());

const traces = async (agentId: string): Promise<Array<{ trace_id: string }>> => {
  const res = await h.call('GET', `/engine/traces?agent_id=${agentId}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().traces;
};

describe('idempotency', () => {
  it('a retry with the same fields returns the same response and stores no second trace', async () => {
    const { agent_id, token } = await h.registerAgent();
    const order = h.order(agent_id);
    const first = await h.call('POST', '/engine/authorize', order, token);
    expect(first.statusCode, first.body).toBe(200);
    const again = await h.call('POST', '/engine/authorize', order, token);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect((await traces(agent_id)).map((t) => t.trace_id)).toEqual([first.json().trace_id]);
  });

  it('a retry later (clock moved), with keys reordered, defaults spelt out and a fresh heartbeat, is the same order', async () => {
    const { agent_id, token } = await h.registerAgent();
    const order = h.order(agent_id);
    const first = (await h.call('POST', '/engine/authorize', order, token)).json();
    h.clock.now += 5_000;
    const reordered = Object.fromEntries(Object.entries(order).reverse());
    const retry = { ...reordered, multiplier: 1, notional_currency: 'USD', reduce_only: false, stop_price: null, regulatory: null, heartbeat: h.heartbeat(42) };
    const again = await h.call('POST', '/engine/authorize', retry, token);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(first);
    expect(await traces(agent_id)).toHaveLength(1);
  });

  it('the tagged action form and the plain form are the same order', async () => {
    const { agent_id, token } = await h.registerAgent();
    const order = h.order(agent_id);
    const first = (await h.call('POST', '/engine/authorize', order, token)).json();
    const again = await h.call('POST', '/engine/authorize', { ...order, action: { Long: order.quantity } }, token);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(first);
  });

  it('client_order_id_conflict: the same client_order_id with different fields is a 409, and no trace is added', async () => {
    const { agent_id, token } = await h.registerAgent();
    const order = h.order(agent_id);
    expect((await h.call('POST', '/engine/authorize', order, token)).statusCode).toBe(200);
    const variants: Array<Record<string, unknown>> = [
      { quantity: 101, notional: 19_190 },
      { action: 'Short' },
      { asset: 'MSFT' },
      { venue_id: 'XNYS' },
      { reduce_only: true },
      { regulatory: { jurisdiction: 'EU' } },
      { prompt_version: 'p-4' },
    ];
    for (const v of variants) {
      const res = await h.call('POST', '/engine/authorize', { ...order, ...v }, token);
      expect(res.statusCode, `${JSON.stringify(v)}: ${res.body}`).toBe(409);
      expect(res.json()).toEqual({
        code: 'client_order_id_conflict',
        detail: `client_order_id ${String(order.client_order_id)} was already used by this agent for a different order`,
      });
    }
    expect(await traces(agent_id)).toHaveLength(1);
  });

  it('client_order_id is scoped to the agent: another agent may use the same id', async () => {
    const a = await h.registerAgent();
    const b = await h.registerAgent();
    const clientOrderId = randomUUID();
    const ra = await h.call('POST', '/engine/authorize', h.order(a.agent_id, { client_order_id: clientOrderId }), a.token);
    const rb = await h.call('POST', '/engine/authorize', h.order(b.agent_id, { client_order_id: clientOrderId }), b.token);
    expect(ra.statusCode, ra.body).toBe(200);
    expect(rb.statusCode, rb.body).toBe(200);
    expect(rb.json().trace_id).not.toBe(ra.json().trace_id);
  });

  it('a refused order stores nothing to replay: after the cause is fixed, the same client_order_id is authorized', async () => {
    const { agent_id, token } = await h.registerAgent();
    const order = h.order(agent_id);
    await h.call('PATCH', `/engine/admin/agents/${agent_id}/status`, { status: 'Suspended' });
    expect((await h.call('POST', '/engine/authorize', order, token)).json().code).toBe('agent_not_active');
    await h.call('PATCH', `/engine/admin/agents/${agent_id}/status`, { status: 'Active' });
    const res = await h.call('POST', '/engine/authorize', order, token);
    expect(res.statusCode, res.body).toBe(200);
  });

  it('10 concurrent identical requests all answer 200 with one trace_id, and exactly one trace is stored', async () => {
    const { agent_id, token } = await h.registerAgent();
    const order = h.order(agent_id);
    const results = await Promise.all(Array.from({ length: 10 }, () => h.call('POST', '/engine/authorize', order, token)));
    for (const r of results) expect(r.statusCode, r.body).toBe(200);
    const bodies = results.map((r) => r.json());
    expect(new Set(bodies.map((b) => b.trace_id)).size).toBe(1);
    expect(new Set(bodies.map((b) => b.reasoning_hash)).size).toBe(1);
    const stored = await traces(agent_id);
    expect(stored.map((t) => t.trace_id)).toEqual([bodies[0].trace_id]);
    const trace = await h.call('GET', `/engine/trace/${bodies[0].trace_id}`);
    expect(trace.json().integrity.reasoning_hash).toBe(bodies[0].reasoning_hash);
  });

  it('10 concurrent requests with one client_order_id but different quantities: one 200, nine 409', async () => {
    const { agent_id, token } = await h.registerAgent();
    const clientOrderId = randomUUID();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        h.call('POST', '/engine/authorize', h.order(agent_id, { client_order_id: clientOrderId, quantity: 100 + i, notional: (100 + i) * 190 }), token),
      ),
    );
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.statusCode === 409)) expect(r.json().code).toBe('client_order_id_conflict');
    expect(await traces(agent_id)).toHaveLength(1);
  });
});
