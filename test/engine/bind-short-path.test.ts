/**
 * Bind's short path (src/engine/sealed-cache.ts): a trace this process sealed is bound without reading it,
 * by the update whose condition (unbound, in the state sealed) is the guard. Every answer must be the one the
 * read gives: a trace bound meanwhile by another process is a 409 naming that bind, a trace the sweeper
 * expired binds "bound after expiry", another agent's token learns nothing, and a trace this process did not
 * seal is read as before.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SealedTraces } from '../../src/engine/sealed-cache.js';
import { sweep } from '../../src/engine/sweeper.js';
import { bindTrace, type NewTrace } from '../../src/engine/store/traces.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
let agent: { agent_id: string; token: string };
beforeAll(async () => {
  h = await engineHarness();
  await h.publishRegime('expansion');
  agent = await h.registerAgent();
});
afterAll(async () => h?.close());

const reads = (): number => h.ctx.batching.bindReads.stats.items;
const writes = (): number => h.ctx.batching.binds.stats.items;
const fill = (trace_id: string, exchange_tx_id: string, extra: Record<string, unknown> = {}) => ({
  trace_id,
  exchange_tx_id,
  execution_status: 'Filled',
  asset: 'AAPL',
  executed_quantity: 100,
  executed_side: 'Long',
  ...extra,
});
const proof = (reasoningHash: string, txId: string): string => createHash('sha256').update(`${reasoningHash}||${txId}`, 'ascii').digest('hex');
async function authorized(token = agent.token, agentId = agent.agent_id): Promise<{ trace_id: string; reasoning_hash: string }> {
  const res = await h.call('POST', '/engine/authorize', h.order(agentId), token);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const stored = async (traceId: string) =>
  (await h.store.sql`select status, verification_status, exchange_tx_id, final_proof, divergence_reason from traces where trace_id = ${traceId}`)[0];

describe("bind's short path", () => {
  it("binds a trace this process sealed without reading it: the answer, the stored row and the log leaf are the read path's", async () => {
    const a = await authorized();
    const before = reads();
    const res = await h.call('POST', '/engine/bind-execution', fill(a.trace_id, 'EX-SHORT'), agent.token);
    expect(res.statusCode, res.body).toBe(200);
    expect(reads() - before, 'no read of the trace').toBe(0);
    expect(res.json()).toMatchObject({
      trace_id: a.trace_id,
      verification_status: 'Matched',
      divergence_reason: null,
      final_proof: proof(a.reasoning_hash, 'EX-SHORT'),
    });
    expect(await stored(a.trace_id)).toEqual({
      status: 'MATCHED',
      verification_status: 'Matched',
      exchange_tx_id: 'EX-SHORT',
      final_proof: proof(a.reasoning_hash, 'EX-SHORT'),
      divergence_reason: null,
    });
    const [leaf] = await h.store.sql`select count(*)::int as n from log_queue where trace_id = ${a.trace_id} and kind = 'final_proof'`;
    const [logged] = await h.store.sql`select count(*)::int as n from log_leaves where trace_id = ${a.trace_id} and kind = 'final_proof'`;
    expect(leaf!.n + logged!.n, 'the final proof queued for the transparency log').toBe(1);
    // Decided from what was sealed: a quantity outside the tolerance is Divergent, naming the sealed quantity.
    const b = await authorized();
    const off = await h.call('POST', '/engine/bind-execution', fill(b.trace_id, 'EX-OFF', { executed_quantity: 250 }), agent.token);
    expect(off.json()).toMatchObject({ verification_status: 'Divergent' });
    expect(off.json().divergence_reason).toContain('executed_quantity: authorized 100, executed 250');
    expect(reads() - before).toBe(0);
  });

  it('a trace id in capitals is the same trace', async () => {
    const a = await authorized();
    const before = reads();
    const res = await h.call('POST', '/engine/bind-execution', fill(a.trace_id.toUpperCase(), 'EX-CAPS'), agent.token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().trace_id).toBe(a.trace_id);
    expect(reads() - before).toBe(0);
  });

  it('a trace bound meanwhile by another process: 409 naming that bind, which stays as it was', async () => {
    const a = await authorized();
    // What another instance's bind writes (src/engine/store/traces.ts applyBinds).
    await h.store.sql`update traces set status = 'MATCHED', verification_status = 'Matched', exchange_tx_id = 'EX-ELSEWHERE',
      execution_status = 'Filled', execution_time = now(), final_proof = ${proof(a.reasoning_hash, 'EX-ELSEWHERE')}, bound_at = now()
      where trace_id = ${a.trace_id}`;
    const before = { reads: reads(), writes: writes() };
    const res = await h.call('POST', '/engine/bind-execution', fill(a.trace_id, 'EX-LATE'), agent.token);
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json()).toEqual({ code: 'trace_already_bound', detail: `trace ${a.trace_id} is already bound (exchange_tx_id EX-ELSEWHERE)` });
    expect(writes() - before.writes, 'the update, tried first, matched nothing').toBe(1);
    expect(reads() - before.reads, 'then the trace was read').toBe(1);
    expect(await stored(a.trace_id)).toMatchObject({ exchange_tx_id: 'EX-ELSEWHERE', final_proof: proof(a.reasoning_hash, 'EX-ELSEWHERE') });
  });

  it('a trace the sweeper expired after it was sealed binds Divergent "bound after expiry"', async () => {
    const a = await authorized();
    const swept = await sweep(h.store.sql, h.clock.now + h.config.traceExpiryMs + 1000, h.config.traceExpiryMs);
    expect(swept.expired).toBeGreaterThanOrEqual(1);
    const before = { reads: reads(), writes: writes() };
    const res = await h.call('POST', '/engine/bind-execution', fill(a.trace_id, 'EX-EXPIRED'), agent.token);
    expect(res.statusCode, res.body).toBe(200);
    expect([writes() - before.writes, reads() - before.reads], 'an update that matched nothing, a read, an update').toEqual([2, 1]);
    expect(res.json()).toMatchObject({
      verification_status: 'Divergent',
      divergence_reason: 'bound after expiry',
      final_proof: proof(a.reasoning_hash, 'EX-EXPIRED'),
    });
    expect(await stored(a.trace_id)).toMatchObject({ status: 'DIVERGENT', verification_status: 'Divergent' });
  });

  it("another agent's token is refused before anything of the trace is told, and the owner then binds it", async () => {
    const a = await authorized();
    const other = await h.registerAgent();
    const refused = await h.call('POST', '/engine/bind-execution', fill(a.trace_id, 'EX-THEIRS'), other.token);
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json()).toEqual({ code: 'agent_not_permitted', detail: `this token may not bind traces of agent ${agent.agent_id}` });
    expect(await stored(a.trace_id)).toMatchObject({ status: 'PENDING', final_proof: null });
    const mine = await h.call('POST', '/engine/bind-execution', fill(a.trace_id, 'EX-MINE'), agent.token);
    expect(mine.statusCode, mine.body).toBe(200);
    expect(mine.json().final_proof).toBe(proof(a.reasoning_hash, 'EX-MINE'));
  });

  it('a trace this process did not seal is read, and bound the same way', async () => {
    const a = await authorized();
    const sealedBy = h.ctx.sealed;
    h.ctx.sealed = new SealedTraces();
    try {
      const before = reads();
      const res = await h.call('POST', '/engine/bind-execution', fill(a.trace_id, 'EX-READ'), agent.token);
      expect(res.statusCode, res.body).toBe(200);
      expect(reads() - before).toBe(1);
      expect(res.json()).toMatchObject({ verification_status: 'Matched', final_proof: proof(a.reasoning_hash, 'EX-READ') });
    } finally {
      h.ctx.sealed = sealedBy;
    }
  });

  it('a known trace named with a partition that does not hold it (or does not exist) is read and bound', async () => {
    const a = await authorized();
    const known = new SealedTraces();
    const [row] = await h.store.sql<NewTrace[]>`select * from traces where trace_id = ${a.trace_id}`;
    known.remember(row!);
    const read = known.take(a.trace_id)!;
    expect(read.part).toMatch(/^traces_y\d{4}m\d{2}$/);
    const before = reads();
    const outcome = await bindTrace(
      h.ctx.batching.bindStore,
      a.trace_id,
      (r) => ({
        exchange_tx_id: 'EX-NOPART',
        execution_status: 'Filled',
        execution_time: new Date(h.clock.now),
        executed_asset: null,
        executed_quantity: null,
        executed_side: null,
        execution_price: null,
        verification_status: 'Matched',
        divergence_reason: null,
        final_proof: proof(r.reasoning_hash, 'EX-NOPART'),
      }),
      { ...read, part: 'traces_y1901m01' },
    );
    expect(outcome.kind).toBe('bound');
    expect(reads() - before).toBe(1);
    expect(await stored(a.trace_id)).toMatchObject({ exchange_tx_id: 'EX-NOPART' });
  });

  it('50 concurrent binds of a trace this process sealed: exactly one 200, 49 × 409', async () => {
    const a = await authorized();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => h.call('POST', '/engine/bind-execution', fill(a.trace_id, `EX-C${i}`), agent.token)),
    );
    const codes = answers.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(49);
    const winner = answers.find((r) => r.statusCode === 200)!.json();
    expect((await stored(a.trace_id))!.final_proof).toBe(winner.final_proof);
  });
});

describe('the cache of sealed traces', () => {
  const sealed = (n: number, over: Partial<NewTrace> = {}): NewTrace => ({
    trace_id: `0000000${n}-0000-7000-8000-00000000000A`,
    txn_time: new Date(Date.UTC(2026, 10, 29, 12, 0, 0, n)),
    agent_id: '5F0C1E2D-0000-4000-8000-0000000000B1',
    client_order_id: `c${n}`,
    status: n % 2 ? 'PENDING' : 'SHADOW_HALTED',
    action: n % 2 ? 'Long' : 'Short',
    asset: `ASSET${n}`,
    quantity: 100.5 + n,
    notional: 19_000,
    notional_currency: 'USD',
    reasoning_hash: `${n}`.repeat(64),
    sealed: '{}',
    regulatory: null,
    regulatory_salt: null,
    regulatory_enc: null,
    policy_result: 'PASS',
    order_hash: 'e'.repeat(64),
    response: {} as never,
    ...over,
  });

  it('gives back each trace as sealed, in the form a bind reads it, once', () => {
    const cache = new SealedTraces(4);
    for (const n of [1, 2]) cache.remember(sealed(n));
    expect(cache.take(sealed(2).trace_id)).toEqual({
      trace_id: '00000002-0000-7000-8000-00000000000a',
      txn_time: new Date(Date.UTC(2026, 10, 29, 12, 0, 0, 2)),
      agent_id: '5f0c1e2d-0000-4000-8000-0000000000b1',
      status: 'SHADOW_HALTED',
      verification_status: 'Pending',
      action: 'Short',
      asset: 'ASSET2',
      quantity: 102.5,
      reasoning_hash: '2'.repeat(64),
      final_proof: null,
      exchange_tx_id: null,
      execution_status: null,
      execution_time: null,
      divergence_reason: null,
      part: 'traces_y2026m11',
    });
    expect(cache.take(sealed(2).trace_id)).toBeNull();
    expect(cache.take(sealed(1).trace_id)).toMatchObject({ status: 'PENDING', action: 'Long', quantity: 101.5, reasoning_hash: '1'.repeat(64) });
  });

  it('holds at most its limit, the oldest dropped first', () => {
    const cache = new SealedTraces(2);
    for (const n of [1, 2, 3]) cache.remember(sealed(n));
    expect(cache.take(sealed(1).trace_id)).toBeNull();
    expect(cache.take(sealed(3).trace_id)?.asset).toBe('ASSET3');
    expect(cache.take(sealed(2).trace_id)?.asset).toBe('ASSET2');
    // A slot freed by a bind is reused in turn, and nothing else is dropped.
    for (const n of [4, 5]) cache.remember(sealed(n));
    expect([cache.take(sealed(4).trace_id)?.asset, cache.take(sealed(5).trace_id)?.asset]).toEqual(['ASSET4', 'ASSET5']);
  });

  it('keeps nothing whose ids are not in the stored form (the bind then reads the trace)', () => {
    const cache = new SealedTraces(4);
    cache.remember(sealed(1, { agent_id: 'not-a-uuid' }));
    cache.remember(sealed(2, { reasoning_hash: 'xyz' }));
    expect([cache.take(sealed(1).trace_id), cache.take(sealed(2).trace_id)]).toEqual([null, null]);
    const none = new SealedTraces(0);
    none.remember(sealed(3));
    expect(none.take(sealed(3).trace_id)).toBeNull();
  });
});
