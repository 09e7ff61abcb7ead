/**
 * The message throttle counted by the statement that seals (src/engine/store/traces.ts `insertTraces`): an
 * order over the limit writes nothing but its count and leaves its heartbeat unspent; under shadow mode it is
 * sealed SHADOW_HALTED as refused by the throttle and counted once; orders of many agents sharing statements
 * are each counted against their own agent; an agent with an open-exposure cap is still throttled.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

const LIMIT = 3;

function expectThrottled(res: LightMyRequestResponse, orders: number): void {
  expect(res.statusCode, res.body).toBe(403);
  expect(res.json()).toEqual({ code: 'order_rate_exceeded', detail: `${orders} orders in the current second exceed the limit of ${LIMIT} per second` });
}

describe('the throttle in the sealing statement, Layer 2 on', () => {
  let h: EngineHarness;
  beforeAll(async () => {
    h = await engineHarness({ config: { layer2Enabled: true }, policy: { max_orders_per_second: LIMIT } });
    await h.publishRegime('expansion');
  });
  afterAll(async () => h?.close());

  /** Puts the clock 10 ms into a fresh wall-clock second. */
  const startOfSecond = (): void => {
    h.clock.now = (Math.floor(h.clock.now / 1000) + 1) * 1000 + 10;
  };
  const authorize = (agentId: string, token: string, sequence: number): Promise<LightMyRequestResponse> =>
    h.call('POST', '/engine/authorize', h.order(agentId, { heartbeat: h.heartbeat(sequence) }), token);
  const setShadow = async (enabled: boolean): Promise<void> => {
    expect((await h.call('POST', '/engine/admin/shadow-mode', { enabled, reason: 'throttle test' })).statusCode).toBe(200);
  };
  const traces = async (agentId: string): Promise<Array<{ status: string; policy_result: string }>> =>
    h.store.sql<Array<{ status: string; policy_result: string }>>`select status, policy_result from traces where agent_id = ${agentId}`;

  it('an order over the limit writes no trace and leaves its heartbeat unspent for the next second', async () => {
    const { agent_id, token } = await h.registerAgent();
    startOfSecond();
    for (let s = 1; s <= LIMIT; s++) expect((await authorize(agent_id, token, s)).statusCode).toBe(200);
    expectThrottled(await authorize(agent_id, token, 4), 4);
    expect(await traces(agent_id)).toHaveLength(LIMIT);
    const [mark] = await h.store.sql<Array<{ last: string }>>`select last_sequence_id::text as last from heartbeat_marks where agent_id = ${agent_id}`;
    expect(mark?.last).toBe(String(LIMIT));
    h.clock.now += 1000;
    const next = await authorize(agent_id, token, 4);
    expect(next.statusCode, next.body).toBe(200);
    expect(await traces(agent_id)).toHaveLength(LIMIT + 1);
  });

  it('under shadow mode an order over the limit is sealed SHADOW_HALTED as refused by the throttle, and counted once', async () => {
    const { agent_id, token } = await h.registerAgent();
    await setShadow(true);
    try {
      startOfSecond();
      for (let s = 1; s <= LIMIT; s++) expect((await authorize(agent_id, token, s)).statusCode).toBe(200);
      const over = await authorize(agent_id, token, 4);
      expect(over.statusCode, over.body).toBe(200);
      expect(over.json()).toMatchObject({ authorized: true, shadow_blocked: true });
      const trace = (await h.call('GET', `/engine/trace/${over.json().trace_id}`)).json();
      expect(trace.integrity.status).toBe('SHADOW_HALTED');
      expect(trace.policy.result).toBe('FAIL:order_rate_exceeded');
      expect(trace.heartbeat.sequence_id).toBe(4);
    } finally {
      await setShadow(false);
    }
    // The shadowed order was counted once: the next is the 5th of the second.
    expectThrottled(await authorize(agent_id, token, 5), 5);
    // Sealed in one clock millisecond: compared as a set.
    expect((await traces(agent_id)).map((t) => t.policy_result).sort()).toEqual(['FAIL:order_rate_exceeded', 'PASS', 'PASS', 'PASS']);
  });

  it('an agent with an open-exposure cap is throttled too', async () => {
    const { agent_id, token } = await h.registerAgent({ max_notional: 1_000_000, max_open_notional: 10_000_000 });
    startOfSecond();
    for (let s = 1; s <= LIMIT; s++) expect((await authorize(agent_id, token, s)).statusCode).toBe(200);
    expectThrottled(await authorize(agent_id, token, 4), 4);
    expect(await traces(agent_id)).toHaveLength(LIMIT);
  });
});

describe('the throttle in shared sealing statements', () => {
  let h: EngineHarness;
  beforeAll(async () => {
    // One statement of each kind at a time, so that concurrent orders of many agents share them.
    h = await engineHarness({ config: { batchInFlight: 1 }, policy: { max_orders_per_second: LIMIT }, max: 10 });
    await h.publishRegime('expansion');
  });
  afterAll(async () => h?.close());

  it('12 agents sending 7 orders each at once: each agent has exactly the limit sealed, the rest refused with their counts', async () => {
    const agents = await Promise.all(Array.from({ length: 12 }, () => h.registerAgent()));
    h.clock.now = (Math.floor(h.clock.now / 1000) + 1) * 1000 + 10;
    const before = { ...h.ctx.batching.seals.stats };
    const answers = await Promise.all(
      agents.flatMap((a) =>
        Array.from({ length: 7 }, async () => ({
          a,
          res: await h.call('POST', '/engine/authorize', h.order(a.agent_id), a.token),
        })),
      ),
    );
    const seals = h.ctx.batching.seals.stats;
    expect(seals.items - before.items, 'every order went through the sealing queue').toBe(84);
    expect(seals.batches - before.batches, 'orders of several agents shared statements').toBeLessThan(84);
    for (const a of agents) {
      const mine = answers.filter((x) => x.a === a).map((x) => x.res);
      expect(mine.filter((r) => r.statusCode === 200)).toHaveLength(LIMIT);
      const refused = mine.filter((r) => r.statusCode !== 200);
      for (const r of refused) expect(r.json().code, r.body).toBe('order_rate_exceeded');
      // Each refused order names its own place in the count: 4th, 5th, 6th and 7th.
      expect(refused.map((r) => Number(/^(\d+) orders/.exec(r.json().detail as string)?.[1])).sort()).toEqual([4, 5, 6, 7]);
      const [n] = await h.store.sql<Array<{ n: number }>>`select count(*)::int as n from traces where agent_id = ${a.agent_id}`;
      expect(n?.n).toBe(LIMIT);
    }
  });
});
