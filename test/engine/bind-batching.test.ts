/**
 * Bind under group commit (src/engine/store/batching.ts): concurrent binds are read by shared statements and
 * applied by shared statements, and each request still gets the answer it would get alone: bound (Matched or
 * Divergent), 409 for a trace already bound or bound by a concurrent request, 404 for a trace that does not
 * exist. Traces are found in the partition their id names, including a trace sealed in an earlier
 * month; a trace whose id names no time (sealed before the rule), and one kept in the default partition
 * (its month had no partition), are still found.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { newTraceId, traceTimeOf } from '../../src/core/trace-id.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
beforeAll(async () => {
  // One statement of each kind at a time, so that concurrent requests must share them.
  h = await engineHarness({ config: { batchInFlight: 1 }, max: 10 });
  await h.publishRegime('expansion');
});
afterAll(async () => h?.close());

const fill = (trace_id: string, exchange_tx_id: string, quantity = 100) => ({
  trace_id,
  exchange_tx_id,
  execution_status: 'Filled',
  asset: 'AAPL',
  executed_quantity: quantity,
});

describe('bind with group commit', () => {
  it('authorize seals each trace under an id that names its txn_time', async () => {
    const a = await h.registerAgent();
    const res = await h.call('POST', '/engine/authorize', h.order(a.agent_id), a.token);
    const id = res.json().trace_id as string;
    const [row] = await h.store.sql<Array<{ txn_time: Date; sealed: string }>>`select txn_time, sealed from traces where trace_id = ${id}`;
    expect(traceTimeOf(id)?.getTime()).toBe(row!.txn_time.getTime());
    expect(JSON.parse(row!.sealed).trace_id).toBe(id);
  });

  it('50 concurrent binds in shared statements: every request gets its own outcome', async () => {
    const agents = await Promise.all(Array.from({ length: 10 }, () => h.registerAgent()));
    const authorize = async (i: number): Promise<{ id: string; token: string }> => {
      const a = agents[i % agents.length]!;
      const res = await h.call('POST', '/engine/authorize', h.order(a.agent_id), a.token);
      expect(res.statusCode, res.body).toBe(200);
      return { id: res.json().trace_id as string, token: a.token };
    };
    const matched = await Promise.all(Array.from({ length: 20 }, (_, i) => authorize(i)));
    const divergent = await Promise.all(Array.from({ length: 5 }, (_, i) => authorize(i)));
    const bound = await Promise.all(Array.from({ length: 5 }, (_, i) => authorize(i)));
    const raced = await Promise.all(Array.from({ length: 5 }, (_, i) => authorize(i)));
    const [legacy, old, stray] = await Promise.all([authorize(0), authorize(1), authorize(2)]);
    for (const [i, t] of bound.entries()) expect((await h.call('POST', '/engine/bind-execution', fill(t.id, `EX-B${i}`), t.token)).statusCode).toBe(200);
    // A trace sealed before ids named their time: a random (version 4) id.
    const legacyId = randomUUID();
    await h.store.sql`update traces set trace_id = ${legacyId} where trace_id = ${legacy!.id}`;
    // A trace sealed 40 days ago, in an earlier month's partition, under the id of that time.
    const oldAt = new Date(Date.now() - 40 * 86_400_000);
    const oldId = newTraceId(oldAt.getTime());
    await h.store.sql`select ensure_trace_partitions(${oldAt}, 1)`;
    await h.store.sql`update traces set trace_id = ${oldId}, txn_time = ${oldAt} where trace_id = ${old!.id}`;
    const [moved] = await h.store.sql`select tableoid::regclass::text as part from traces where trace_id = ${oldId}`;
    expect(moved!.part).not.toBe('traces_default');
    // A trace of a month that has no partition: it is kept in the default partition.
    const strayAt = new Date(Date.UTC(2019, 5, 15, 12));
    const strayId = newTraceId(strayAt.getTime());
    await h.store.sql`update traces set trace_id = ${strayId}, txn_time = ${strayAt} where trace_id = ${stray!.id}`;
    const [strayPart] = await h.store.sql`select tableoid::regclass::text as part from traces where trace_id = ${strayId}`;
    expect(strayPart!.part).toBe('traces_default');
    const token = agents[0]!.token;
    const before = { reads: { ...h.ctx.batching.bindReads.stats }, binds: { ...h.ctx.batching.binds.stats } };

    const requests = [
      ...matched.map((t, i) => ({ kind: 'matched', token: t.token, body: fill(t.id, `EX-M${i}`) })),
      ...divergent.map((t, i) => ({ kind: 'divergent', token: t.token, body: fill(t.id, `EX-D${i}`, 250) })),
      ...bound.map((t, i) => ({ kind: 'bound', token: t.token, body: fill(t.id, `EX-AGAIN${i}`) })),
      ...raced.flatMap((t, i) => [0, 1, 2].map((k) => ({ kind: `raced${i}`, token: t.token, body: fill(t.id, `EX-R${i}-${k}`) }))),
      { kind: 'matched', token, body: fill(legacyId, 'EX-LEGACY') },
      { kind: 'matched', token: agents[1]!.token, body: fill(oldId, 'EX-OLD') },
      { kind: 'matched', token: agents[2]!.token, body: fill(strayId, 'EX-STRAY') },
      { kind: 'missing', token, body: fill(newTraceId(Date.now()), 'EX-X1') },
      { kind: 'missing', token, body: fill(randomUUID(), 'EX-X2') },
      { kind: 'missing', token, body: fill(newTraceId(oldAt.getTime()), 'EX-X3') },
    ];
    const answers = await Promise.all(requests.map((r) => h.call('POST', '/engine/bind-execution', r.body, r.token)));

    const stats = h.ctx.batching;
    expect(stats.bindReads.stats.batches - before.reads.batches).toBeLessThan(stats.bindReads.stats.items - before.reads.items);
    expect(stats.binds.stats.batches - before.binds.batches).toBeLessThan(stats.binds.stats.items - before.binds.items);

    for (const [i, r] of requests.entries()) {
      const res = answers[i]!;
      if (r.kind === 'matched') {
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().verification_status).toBe('Matched');
      } else if (r.kind === 'divergent') {
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().verification_status).toBe('Divergent');
        expect(res.json().divergence_reason).toContain('executed_quantity');
      } else if (r.kind === 'bound') {
        expect(res.statusCode, res.body).toBe(409);
        expect(res.json().code).toBe('trace_already_bound');
      } else if (r.kind === 'missing') {
        expect(res.statusCode, res.body).toBe(404);
      }
    }
    // Three binds of one trace, however they were batched: one 200, two 409, and the stored proof is the winner's.
    for (const [i, t] of raced.entries()) {
      const mine = requests.flatMap((r, j) => (r.kind === `raced${i}` ? [answers[j]!] : []));
      expect(mine.map((r) => r.statusCode).sort()).toEqual([200, 409, 409]);
      const winner = mine.find((r) => r.statusCode === 200)!.json();
      const [row] = await h.store.sql`select final_proof from traces where trace_id = ${t.id}`;
      expect(row!.final_proof).toBe(winner.final_proof);
    }
    // What was answered is what is stored.
    const [old2] = await h.store.sql`select exchange_tx_id, status from traces where trace_id = ${oldId}`;
    expect(old2).toEqual({ exchange_tx_id: 'EX-OLD', status: 'MATCHED' });
    const [stray2] = await h.store.sql`select exchange_tx_id from traces where trace_id = ${strayId}`;
    expect(stray2!.exchange_tx_id).toBe('EX-STRAY');
    expect((await h.call('GET', `/engine/trace/${strayId}`)).statusCode).toBe(200);
    expect((await h.call('GET', `/engine/trace/${oldId}`)).statusCode).toBe(200);
    const [legacy2] = await h.store.sql`select exchange_tx_id from traces where trace_id = ${legacyId}`;
    expect(legacy2!.exchange_tx_id).toBe('EX-LEGACY');
    const [b] = await h.store.sql`select count(*)::int as n from traces where exchange_tx_id like 'EX-AGAIN%'`;
    expect(b!.n).toBe(0);
  });
});
