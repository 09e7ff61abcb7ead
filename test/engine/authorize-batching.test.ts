/**
 * Authorize under group commit (src/engine/store/batching.ts): concurrent authorizes are looked up and sealed in
 * shared statements, and each request still gets exactly the answer it would get alone: fresh orders sealed and
 * verifiable, spent heartbeats refused with nothing written, concurrent retries of one order answered with one
 * trace, and a client_order_id reused for another order refused 409.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
beforeAll(async () => {
  // One statement of each kind at a time, so that concurrent requests must share them.
  h = await engineHarness({ config: { layer2Enabled: true, batchInFlight: 1 }, max: 10 });
  await h.publishRegime('expansion');
});
afterAll(async () => h?.close());

describe('authorize with group commit', () => {
  it('60 concurrent requests of 40 agents in shared statements: every request gets its own outcome', async () => {
    const fresh = await Promise.all(Array.from({ length: 15 }, () => h.registerAgent()));
    const spent = await Promise.all(Array.from({ length: 10 }, () => h.registerAgent()));
    const retried = await Promise.all(Array.from({ length: 10 }, () => h.registerAgent()));
    const reused = await Promise.all(Array.from({ length: 5 }, () => h.registerAgent()));
    // Set up: each `spent` agent has used sequence 5; each `reused` agent has sealed an order with sequence 1.
    for (const a of spent)
      expect((await h.call('POST', '/engine/authorize', h.order(a.agent_id, { heartbeat: h.heartbeat(5) }), a.token)).statusCode).toBe(200);
    const reusedIds: string[] = [];
    for (const a of reused) {
      const order = h.order(a.agent_id, { heartbeat: h.heartbeat(1) });
      expect((await h.call('POST', '/engine/authorize', order, a.token)).statusCode).toBe(200);
      reusedIds.push(order.client_order_id as string);
    }
    const before = { ...h.ctx.batching.seals.stats };

    const retryOrders = retried.map((a) => h.order(a.agent_id, { heartbeat: h.heartbeat(1) }));
    const requests = [
      ...fresh.map((a) => ({ kind: 'fresh', a, body: h.order(a.agent_id, { heartbeat: h.heartbeat(1) }) })),
      ...spent.map((a) => ({ kind: 'spent', a, body: h.order(a.agent_id, { heartbeat: h.heartbeat(5) }) })),
      ...retried.flatMap((a, i) => [
        { kind: 'retry', a, body: retryOrders[i] },
        { kind: 'retry', a, body: retryOrders[i] },
      ]),
      ...reused.map((a, i) => ({
        kind: 'reused',
        a,
        body: h.order(a.agent_id, { heartbeat: h.heartbeat(2), client_order_id: reusedIds[i], quantity: 7, notional: 1330 }),
      })),
      ...fresh.slice(0, 5).map((a) => ({ kind: 'fresh', a, body: h.order(a.agent_id, { heartbeat: h.heartbeat(2) }) })),
    ];
    const answers = await Promise.all(requests.map((r) => h.call('POST', '/engine/authorize', r.body, r.a.token)));

    const seals = h.ctx.batching.seals.stats;
    /** Agents with two fresh orders at once (heartbeats 1 and 2), and those whose heartbeat 1 came second. */
    const racing = new Set(fresh.slice(0, 5));
    const lostRaces = new Set<(typeof fresh)[number]>();
    // Shared statements: fewer sealing statements than sealed requests.
    expect(seals.batches - before.batches).toBeLessThan(seals.items - before.items);

    for (const [i, r] of requests.entries()) {
      const res = answers[i]!;
      if (r.kind === 'spent') {
        expect(res.statusCode, res.body).toBe(403);
        expect(res.json().code).toBe('heartbeat_replayed');
      } else if (r.kind === 'reused') {
        expect(res.statusCode, res.body).toBe(409);
        expect(res.json().code).toBe('client_order_id_conflict');
      } else if (
        r.kind === 'fresh' &&
        res.statusCode === 403 &&
        racing.has(r.a) &&
        (r.body as { heartbeat: { sequence_id: number } }).heartbeat.sequence_id === 1
      ) {
        // The agent's order with heartbeat 2 was sent at the same time and sealed first: heartbeat 1 is then
        // behind the last one accepted, and refused as the engine must. Its order with heartbeat 2 is the 200.
        expect(res.json().code).toBe('heartbeat_replayed');
        lostRaces.add(r.a);
      } else {
        expect(res.statusCode, res.body).toBe(200);
        const verify = await h.call('GET', `/engine/trace/${res.json().trace_id}/verify`);
        expect(verify.json().valid, verify.body).toBe(true);
      }
    }
    // A retried order, however the pair was batched: one trace, both answers name it.
    for (const [i, a] of retried.entries()) {
      const pair = requests.flatMap((r, j) => (r.a === a ? [answers[j]!.json().trace_id] : []));
      expect(new Set(pair).size, `agent ${i}`).toBe(1);
    }
    // Exactly what was answered 200 is stored: one trace per fresh order and per retried order, none for the refused.
    const count = async (ids: string[]) =>
      (
        await h.store.sql<Array<{ n: number }>>`
      select count(*)::int as n from traces where agent_id in ${h.store.sql(ids)}`
      )[0]!.n;
    expect(await count(fresh.map((a) => a.agent_id))).toBe(20 - lostRaces.size);
    expect(await count(retried.map((a) => a.agent_id))).toBe(10);
    expect(await count(spent.map((a) => a.agent_id))).toBe(10);
    expect(await count(reused.map((a) => a.agent_id))).toBe(5);
  });
});
