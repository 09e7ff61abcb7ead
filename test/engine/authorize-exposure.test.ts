/**
 * Controls beside the policy document: the per-agent cap on open exposure (`max_open_notional`: the notional
 * of the agent's authorized, unbound orders plus the new one, atomic under concurrency), regimes named by
 * id in `allowed_regimes`, and an `agent_valid_time` from the future refused with its own code.
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOpenExposure, checkValidTime } from '../../src/engine/policy/exposure.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
beforeAll(async () => {
  h = await engineHarness({ max: 30 });
  await h.publishRegime('expansion');
});
afterAll(async () => h?.close());

/** An order of `notional` (a Market order: no price to agree with). */
const sized = (agentId: string, notional: number, overrides: Record<string, unknown> = {}) =>
  h.order(agentId, { order_type: 'Market', limit_price: undefined, quantity: notional / 100, notional, ...overrides });

function expectDenied(res: LightMyRequestResponse, code: string): void {
  expect(res.statusCode, res.body).toBe(403);
  expect(res.json().code).toBe(code);
}

describe('max_open_notional', () => {
  it('two 600k orders cannot pass a 1M cap one by one; binding the first frees its room', async () => {
    const { agent_id, token } = await h.registerAgent({ max_notional: 1_000_000, max_open_notional: 1_000_000 });
    const first = await h.call('POST', '/engine/authorize', sized(agent_id, 600_000), token);
    expect(first.statusCode, first.body).toBe(200);
    const second = await h.call('POST', '/engine/authorize', sized(agent_id, 600_000), token);
    expectDenied(second, 'open_notional_exceeded');
    expect(second.json().detail).toBe("open notional 600000 plus this order's 600000 is 1200000, above the agent's max_open_notional 1000000");
    // 400k fits exactly.
    expect((await h.call('POST', '/engine/authorize', sized(agent_id, 400_000), token)).statusCode).toBe(200);
    const bound = await h.call(
      'POST',
      '/engine/bind-execution',
      { trace_id: first.json().trace_id, exchange_tx_id: `X-${randomUUID()}`, execution_status: 'Filled' },
      token,
    );
    expect(bound.statusCode, bound.body).toBe(200);
    expect((await h.call('POST', '/engine/authorize', sized(agent_id, 600_000), token)).statusCode).toBe(200);
  });

  it('20 concurrent 100k orders under a 1M cap: exactly 10 authorized, 10 refused, 1M open', async () => {
    const { agent_id, token } = await h.registerAgent({ max_notional: 1_000_000, max_open_notional: 1_000_000 });
    const results = await Promise.all(Array.from({ length: 20 }, () => h.call('POST', '/engine/authorize', sized(agent_id, 100_000), token)));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(10);
    const refused = results.filter((r) => r.statusCode === 403);
    expect(refused).toHaveLength(10);
    for (const r of refused) expect(r.json().code).toBe('open_notional_exceeded');
    const stored = (await h.call('GET', `/engine/traces?agent_id=${agent_id}&status=PENDING`)).json();
    expect(stored.traces.reduce((sum: number, t: { notional: number }) => sum + t.notional, 0)).toBe(1_000_000);
  });

  it('concurrent retries of one order under a cap are one order: all answered with its trace, counted once', async () => {
    const { agent_id, token } = await h.registerAgent({ max_notional: 1_000_000, max_open_notional: 1_000_000 });
    const order = sized(agent_id, 700_000);
    const results = await Promise.all(Array.from({ length: 8 }, () => h.call('POST', '/engine/authorize', order, token)));
    for (const r of results) expect(r.statusCode, r.body).toBe(200);
    expect(new Set(results.map((r) => r.json().trace_id)).size).toBe(1);
    expect((await h.call('POST', '/engine/authorize', sized(agent_id, 300_000), token)).statusCode).toBe(200);
  });

  it('in shadow mode a breach is sealed SHADOW_HALTED with FAIL:open_notional_exceeded, not refused', async () => {
    const { agent_id, token } = await h.registerAgent({ max_notional: 1_000_000, max_open_notional: 500_000 });
    expect((await h.call('POST', '/engine/authorize', sized(agent_id, 400_000), token)).statusCode).toBe(200);
    await h.call('POST', '/engine/admin/shadow-mode', { enabled: true, reason: 'exposure cap rollout' });
    try {
      const res = await h.call('POST', '/engine/authorize', sized(agent_id, 400_000), token);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().shadow_blocked).toBe(true);
      const trace = (await h.call('GET', `/engine/trace/${res.json().trace_id}`)).json();
      expect(trace.policy.result).toBe('FAIL:open_notional_exceeded');
    } finally {
      await h.call('POST', '/engine/admin/shadow-mode', { enabled: false });
    }
  });

  it('is registered, shown, and validated like max_notional; absent means no cap', async () => {
    const res = await h.call('POST', '/engine/admin/agents', { name: 'capped', max_notional: 10, models: [], max_open_notional: 25 });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().max_open_notional).toBe(25);
    const open = await h.call('POST', '/engine/admin/agents', { name: 'open', max_notional: 10, models: [] });
    expect(open.json().max_open_notional).toBeNull();
    for (const bad of [0, -1, 'lots']) {
      const r = await h.call('POST', '/engine/admin/agents', { name: 'bad', max_notional: 10, models: [], max_open_notional: bad });
      expect(r.statusCode).toBe(422);
      expect(r.json().errors.map((e: { field: string }) => e.field)).toContain('max_open_notional');
    }
  });

  it('checkOpenExposure: at the cap passes, a cent over is refused, no cap always passes', () => {
    expect(checkOpenExposure(600, 400, 1000)).toEqual({ ok: true });
    expect(checkOpenExposure(600, 400.01, 1000).ok).toBe(false);
    expect(checkOpenExposure(1e12, 1e12, null)).toEqual({ ok: true });
  });
});

describe('allowed_regimes by id', () => {
  it('accepts the ids 0..3 beside the names, stores and shows names, each once', async () => {
    const res = await h.call('POST', '/engine/admin/agents', { name: 'ids', max_notional: 10, models: [], allowed_regimes: [0, 'recovery', 1, 3] });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().allowed_regimes).toEqual(['expansion', 'recovery', 'risk_off']);
  });

  it('refuses ids outside 0..3 and non-integers, naming the element', async () => {
    for (const bad of [4, -1, 1.5, '2']) {
      const r = await h.call('POST', '/engine/admin/agents', { name: 'bad', max_notional: 10, models: [], allowed_regimes: [bad] });
      expect(r.statusCode, JSON.stringify(bad)).toBe(422);
      expect(r.json().errors.map((e: { field: string }) => e.field)).toContain('allowed_regimes[0]');
    }
  });

  it('an agent allowed regime 1 (recovery) only is refused in expansion (regime 0)', async () => {
    const { agent_id, token } = await h.registerAgent({ allowed_regimes: [1] });
    expectDenied(await h.call('POST', '/engine/authorize', h.order(agent_id), token), 'regime_not_allowed');
  });
});

describe('agent_valid_time from the future', () => {
  it('refuses a valid time beyond the replay window ahead of the engine clock with agent_valid_time_future; 30 s ahead passes', async () => {
    const { agent_id, token } = await h.registerAgent();
    const window = h.config.heartbeatReplayWindowMs;
    const ahead = await h.call('POST', '/engine/authorize', h.order(agent_id, { agent_valid_time: h.clock.now + window + 1 }), token);
    expectDenied(ahead, 'agent_valid_time_future');
    expect((await h.call('GET', `/engine/traces?agent_id=${agent_id}`)).json().count).toBe(0);
    const edge = await h.call('POST', '/engine/authorize', h.order(agent_id, { agent_valid_time: h.clock.now + window }), token);
    expect(edge.statusCode, edge.body).toBe(200);
  });

  it('is refused in shadow mode too: a record cannot say a decision was valid before it was made', async () => {
    const { agent_id, token } = await h.registerAgent();
    await h.call('POST', '/engine/admin/shadow-mode', { enabled: true, reason: 'rollout' });
    try {
      expectDenied(
        await h.call('POST', '/engine/authorize', h.order(agent_id, { agent_valid_time: h.clock.now + 3_600_000 }), token),
        'agent_valid_time_future',
      );
    } finally {
      await h.call('POST', '/engine/admin/shadow-mode', { enabled: false });
    }
  });

  it('checkValidTime names both instants and the tolerance', () => {
    const now = Date.parse('2026-03-02T14:30:00Z');
    expect(checkValidTime(now + 30_000, now, 30_000)).toEqual({ ok: true });
    expect(checkValidTime(now + 30_001, now, 30_000)).toEqual({
      ok: false,
      code: 'agent_valid_time_future',
      detail: "agent_valid_time 2026-03-02T14:30:30.001Z is 30001 ms later than the engine's clock (2026-03-02T14:30:00.000Z); at most 30000 ms is tolerated",
    });
  });
});
