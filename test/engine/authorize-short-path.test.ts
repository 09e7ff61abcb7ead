/**
 * Authorize's short path (src/engine/agent-cache.ts): an agent this process has read before is judged without
 * reading the registry, and its order is sealed by a statement that first checks what was read. Every answer
 * must be the one the full path gives: a suspension, an erasure, a changed limit or allowed regimes, made
 * through this instance or straight in the store by another, holds for the next order; retries and spent
 * heartbeats are answered as before, and neither is counted by the throttle.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
let sequence = 0;
beforeAll(async () => {
  h = await engineHarness({ config: { layer2Enabled: true }, policy: { max_orders_per_second: 3 } });
  await h.publishRegime('expansion');
});
afterAll(async () => h?.close());

const send = (agentId: string, token: string, overrides: Record<string, unknown> = {}): Promise<LightMyRequestResponse> =>
  h.call('POST', '/engine/authorize', h.order(agentId, { heartbeat: h.heartbeat(++sequence), ...overrides }), token);
const lookups = (): number => h.ctx.batching.lookups.stats.items;
const traceCount = async (agentId: string): Promise<number> =>
  (await h.store.sql<Array<{ n: number }>>`select count(*)::int as n from traces where agent_id = ${agentId}`)[0]?.n ?? -1;
/** Puts the clock 10 ms into a fresh wall-clock second, so that the throttle's count starts at zero. */
const freshSecond = (): void => {
  h.clock.now = (Math.floor(h.clock.now / 1000) + 1) * 1000 + 10;
};
/** An agent whose first order, on the full path, taught this process its facts. */
async function knownAgent(overrides: Record<string, unknown> = {}): Promise<{ agent_id: string; token: string }> {
  const a = await h.registerAgent(overrides);
  freshSecond();
  const first = await send(a.agent_id, a.token);
  expect(first.statusCode, first.body).toBe(200);
  expect(h.ctx.agents.get(a.agent_id, 'alpha-7', 'a'.repeat(64))).not.toBeNull();
  return a;
}

describe('the short path', () => {
  it('an agent read before is authorized without reading the registry, and its trace is the same as the full path seals', async () => {
    const a = await knownAgent();
    const before = lookups();
    const res = await send(a.agent_id, a.token);
    expect(res.statusCode, res.body).toBe(200);
    expect(lookups() - before, 'no registry read').toBe(0);
    const trace = (await h.call('GET', `/engine/trace/${res.json().trace_id}`)).json();
    expect(trace.policy.result).toBe('PASS');
    expect(trace.integrity).toMatchObject({ status: 'PENDING', reasoning_hash: res.json().reasoning_hash });
    const verified = await h.call('GET', `/engine/trace/${res.json().trace_id}/verify`);
    expect(verified.statusCode, verified.body).toBe(200);
    expect(verified.json()).toMatchObject({ valid: true });
  });

  it('a suspension made through the API holds for the next order: 403, nothing sealed', async () => {
    const a = await knownAgent();
    const suspended = await h.call('PATCH', `/engine/admin/agents/${a.agent_id}/status`, { status: 'Suspended', reason: 'kill switch' });
    expect(suspended.statusCode, suspended.body).toBe(200);
    const res = await send(a.agent_id, a.token);
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json()).toEqual({ code: 'agent_not_active', detail: `agent ${a.agent_id} is Suspended` });
    expect(await traceCount(a.agent_id)).toBe(1);
    expect(h.ctx.agents.get(a.agent_id, 'alpha-7', 'a'.repeat(64))).toBeNull();
  });

  it('a suspension committed by another writer straight in the store holds for the next order', async () => {
    const a = await knownAgent();
    await h.store.sql`update agents set status = 'Suspended', status_reason = 'another instance' where agent_id = ${a.agent_id}`;
    const res = await send(a.agent_id, a.token);
    expect(res.json()).toEqual({ code: 'agent_not_active', detail: `agent ${a.agent_id} is Suspended` });
    expect(await traceCount(a.agent_id)).toBe(1);
  });

  it('an erasure committed straight in the store holds for the next order', async () => {
    const a = await knownAgent();
    // What an erasure writes to the agent's row (src/engine/store/erasure.ts); its key destruction needs a KMS.
    await h.store.sql`update agents set name = null, name_enc = null, erased_at = now() where agent_id = ${a.agent_id}`;
    const res = await send(a.agent_id, a.token);
    expect(res.json()).toEqual({ code: 'agent_not_active', detail: `agent ${a.agent_id} was erased` });
    expect(await traceCount(a.agent_id)).toBe(1);
  });

  it('a lowered max_notional, changed allowed regimes or a new open-exposure cap hold for the next order', async () => {
    const lowered = await knownAgent();
    await h.store.sql`update agents set max_notional = 10000 where agent_id = ${lowered.agent_id}`;
    const big = await send(lowered.agent_id, lowered.token);
    expect(big.statusCode, big.body).toBe(403);
    expect(big.json().code).toBe('notional_cap_exceeded');

    const regimes = await knownAgent();
    await h.store.sql`update agents set allowed_regimes = array['risk_off'] where agent_id = ${regimes.agent_id}`;
    const outside = await send(regimes.agent_id, regimes.token);
    expect(outside.statusCode, outside.body).toBe(403);
    expect(outside.json().code).toBe('regime_not_allowed');

    const capped = await knownAgent();
    await h.store.sql`update agents set max_open_notional = 20000 where agent_id = ${capped.agent_id}`;
    const over = await send(capped.agent_id, capped.token);
    expect(over.statusCode, over.body).toBe(403);
    expect(over.json().code).toBe('open_notional_exceeded');
    for (const a of [lowered, regimes, capped]) expect(await traceCount(a.agent_id)).toBe(1);
  });

  it("a model version approved for one agent is not taken for another's", async () => {
    const a = await knownAgent();
    const other = await h.registerAgent({ models: [{ model_id: 'beta-1', model_hash_hex: 'b'.repeat(64) }] });
    const scoped = await h.call('POST', '/engine/admin/tokens', { client_name: 'both', agent_ids: [a.agent_id, other.agent_id] });
    const res = await send(other.agent_id, scoped.json().token as string);
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json().code).toBe('model_not_registered');
  });

  it('a retry with a fresh heartbeat gets the original answer, seals nothing and is not counted by the throttle', async () => {
    const a = await knownAgent();
    const order = h.order(a.agent_id, { heartbeat: h.heartbeat(++sequence) });
    const original = await h.call('POST', '/engine/authorize', order, a.token);
    expect(original.statusCode, original.body).toBe(200);
    const retried = await h.call('POST', '/engine/authorize', { ...order, heartbeat: h.heartbeat(++sequence) }, a.token);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json()).toEqual(original.json());
    expect(await traceCount(a.agent_id)).toBe(2);
    // Three orders counted this second (the first, the original, and this one); the retry was not.
    expect((await send(a.agent_id, a.token)).statusCode).toBe(200);
    expect((await send(a.agent_id, a.token)).json().code).toBe('order_rate_exceeded');
  });

  it('a spent heartbeat is refused and not counted by the throttle', async () => {
    const a = await knownAgent();
    const spent = sequence;
    for (let i = 0; i < 3; i++) {
      const res = await h.call('POST', '/engine/authorize', h.order(a.agent_id, { heartbeat: h.heartbeat(spent) }), a.token);
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().code).toBe('heartbeat_replayed');
    }
    expect((await send(a.agent_id, a.token)).statusCode).toBe(200);
    expect((await send(a.agent_id, a.token)).statusCode).toBe(200);
    expect((await send(a.agent_id, a.token)).json().code).toBe('order_rate_exceeded');
  });

  it('an order the policy refuses is answered as the full path answers it', async () => {
    const a = await knownAgent();
    const res = await send(a.agent_id, a.token, { notional_currency: 'SEK' });
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json().code).toBe('currency_not_allowed');
  });
});
