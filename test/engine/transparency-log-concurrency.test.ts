/**
 * The transparency log under concurrency, on a real store: 200 authorizes and 100 binds at once through two
 * engine app instances, with two sequencers (two connection pools, as two servers) on the one database.
 * Every committed trace gets exactly its leaves, with consecutive indexes and no index twice; each final_proof
 * follows its reasoning_hash; the newest signed head is the RFC 9162 root of all of them; and a trace whose
 * transaction rolls back leaves nothing to log.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leafHash, toHex } from '../../src/core/log/hashing.js';
import { verifyTreeHeadSignature, type SignedTreeHead } from '../../src/core/log/tree-head.js';
import { createEngineContext, type EngineContext } from '../../src/engine/context.js';
import { startSequencer } from '../../src/engine/sequencer.js';
import { loadLogKey } from '../../src/engine/store/log-key.js';
import { insertTrace } from '../../src/engine/store/traces.js';
import { buildApp } from '../../src/http/app.js';
import { connect } from '../../src/store/driver.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

const TRACES = 200;
const BOUND = 100;

let h: EngineHarness;
let sql2: Sql;
let app2: FastifyInstance;
let ctx2: EngineContext;
const stops: Array<() => Promise<void>> = [];

beforeAll(async () => {
  h = await engineHarness({ max: 30, policy: { max_orders_per_second: null } });
  await h.publishRegime('expansion');
  // A second engine instance on the same database: its own pool, its own app, its own sequencer.
  sql2 = connect(h.store.url, { max: 30 });
  ctx2 = await createEngineContext(h.config, sql2, { policy: h.ctx.policy });
  app2 = await buildApp(h.config, { sql: sql2, logger: false, services: ['engine'], engine: ctx2 });
  await app2.ready();
  for (const sql of [h.store.sql, sql2]) stops.push(startSequencer(sql, h.config, { intervalMs: 20 }));
}, 60_000);
afterAll(async () => {
  for (const stop of stops) await stop();
  await app2?.close();
  ctx2?.state.stop();
  await sql2?.end({ timeout: 5 });
  await h?.close();
});

/** RFC 9162 §2.1.1 MTH over leaf data, recursive as the RFC writes it. */
function mth(data: Uint8Array[]): Uint8Array {
  if (data.length === 0) return new Uint8Array(createHash('sha256').digest());
  if (data.length === 1) return leafHash(data[0] as Uint8Array);
  let k = 1;
  while (k * 2 < data.length) k *= 2;
  return new Uint8Array(
    createHash('sha256')
      .update(Uint8Array.of(1))
      .update(mth(data.slice(0, k)))
      .update(mth(data.slice(k)))
      .digest(),
  );
}

async function waitForLeaves(count: number): Promise<void> {
  const start = Date.now();
  for (;;) {
    const [row] = await h.store.sql<
      Array<{ size: number; queued: number }>
    >`select (select tree_size from log_state) as size, (select count(*)::int from log_queue) as queued`;
    if (row && row.size >= count && row.queued === 0) return;
    if (Date.now() - start > 20_000) throw new Error(`the log holds ${row?.size} leaves and ${row?.queued} queued, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('concurrent traces, two app instances, two sequencers', () => {
  it(`${TRACES} concurrent authorizes and ${BOUND} concurrent binds: every leaf once, consecutive indexes, the signed root over all of them`, async () => {
    const agents = await Promise.all(Array.from({ length: 4 }, () => h.registerAgent()));
    const authorize = async (i: number) => {
      const agent = agents[i % agents.length]!;
      const payload = h.order(agent.agent_id);
      const res =
        i % 2 === 0
          ? await h.call('POST', '/engine/authorize', payload, agent.token)
          : await app2.inject({ method: 'POST', url: '/engine/authorize', payload, headers: { authorization: `Bearer ${agent.token}` } });
      expect(res.statusCode, res.body).toBe(200);
      return { ...(res.json() as { trace_id: string; reasoning_hash: string }), token: agent.token };
    };
    const traces = await Promise.all(Array.from({ length: TRACES }, (_, i) => authorize(i)));
    const binds = await Promise.all(
      traces.slice(0, BOUND).map(async (t, i) => {
        const res = await (i % 2 === 0 ? h.app : app2).inject({
          method: 'POST',
          url: '/engine/bind-execution',
          headers: { authorization: `Bearer ${t.token}` },
          payload: {
            trace_id: t.trace_id,
            exchange_tx_id: `XNAS-${i}`,
            execution_status: 'Filled',
            asset: 'AAPL',
            executed_quantity: 100,
            executed_side: 'Long',
          },
        });
        expect(res.statusCode, res.body).toBe(200);
        return { trace_id: t.trace_id, final_proof: (res.json() as { final_proof: string }).final_proof };
      }),
    );

    await waitForLeaves(TRACES + BOUND);
    const leaves = await h.store.sql<Array<{ leaf_index: number; trace_id: string; kind: string; data: Buffer }>>`
      select leaf_index, trace_id, kind, data from log_leaves order by leaf_index`;
    expect(leaves.map((l) => l.leaf_index)).toEqual(Array.from({ length: TRACES + BOUND }, (_, i) => i));

    const byKey = new Map(leaves.map((l) => [`${l.trace_id}/${l.kind}`, l]));
    expect(byKey.size).toBe(leaves.length);
    for (const t of traces) expect(byKey.get(`${t.trace_id}/reasoning_hash`)?.data.toString('hex'), t.trace_id).toBe(t.reasoning_hash);
    for (const b of binds) {
      const final = byKey.get(`${b.trace_id}/final_proof`);
      expect(final?.data.toString('hex'), b.trace_id).toBe(b.final_proof);
      expect(final!.leaf_index).toBeGreaterThan(byKey.get(`${b.trace_id}/reasoning_hash`)!.leaf_index);
    }

    const head = (await h.call('GET', '/engine/log/head')).json() as SignedTreeHead;
    expect(head.tree_size).toBe(TRACES + BOUND);
    expect(head.root_hash).toBe(toHex(mth(leaves.map((l) => new Uint8Array(l.data)))));
    expect(verifyTreeHeadSignature(head, (await loadLogKey(h.store.sql, h.config)).publicKey)).toEqual({ valid: true });

    // Every perfect subtree of two leaves or more is stored once: Σ floor(n / 2^level) nodes for level ≥ 1 (a
    // leaf's hash comes from its row in log_leaves, not a second copy).
    const [nodes] = await h.store.sql<Array<{ n: number }>>`select count(*)::int as n from log_nodes`;
    let expected = 0;
    for (let width = 2; width <= head.tree_size; width *= 2) expected += Math.floor(head.tree_size / width);
    expect(nodes!.n).toBe(expected);

    // Heads only grow, and never go back in time.
    const heads = await h.store.sql<Array<{ tree_size: number; timestamp_ms: number }>>`select tree_size, timestamp_ms from log_heads order by tree_size`;
    for (let i = 1; i < heads.length; i++) expect(heads[i]!.timestamp_ms).toBeGreaterThanOrEqual(heads[i - 1]!.timestamp_ms);
  }, 120_000);

  it('queues nothing for a trace whose transaction rolls back, and a trace committed later is logged after the ones before it', async () => {
    await waitForLeaves(0);
    const [before] = await h.store.sql<Array<{ size: number }>>`select tree_size as size from log_state`;
    const agentId = (await h.registerAgent()).agent_id;
    const rolledBack = '11111111-2222-4333-8444-555555555555';
    await expect(
      h.store.sql.begin(async (tx) => {
        // The engine's sealing statement, in a transaction that then rolls back.
        const outcome = await insertTrace(
          tx,
          {
            trace_id: rolledBack,
            txn_time: new Date(),
            agent_id: agentId,
            client_order_id: 'rollback-1',
            status: 'PENDING',
            action: 'Long',
            asset: 'AAPL',
            quantity: 1,
            notional: 1,
            notional_currency: 'USD',
            reasoning_hash: 'ab'.repeat(32),
            sealed: '{}',
            regulatory: null,
            regulatory_salt: null,
            regulatory_enc: null,
            policy_result: 'PASS',
            order_hash: 'cd'.repeat(32),
            response: {} as never,
          },
          null,
        );
        expect(outcome).toBe('inserted');
        const [queued] = await tx<Array<{ n: number }>>`select count(*)::int as n from log_queue where trace_id = ${rolledBack}`;
        expect(queued!.n).toBe(1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const [queued] = await h.store.sql<Array<{ n: number }>>`select count(*)::int as n from log_queue where trace_id = ${rolledBack}`;
    expect(queued!.n).toBe(0);

    const agent = await h.registerAgent();
    const res = await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token);
    await waitForLeaves(before!.size + 1);
    const [leaf] = await h.store.sql<Array<{ leaf_index: number }>>`select leaf_index from log_leaves where trace_id = ${res.json().trace_id}`;
    expect(leaf!.leaf_index).toBe(before!.size);
    const [none] = await h.store.sql<Array<{ n: number }>>`select count(*)::int as n from log_leaves where trace_id = ${rolledBack}`;
    expect(none!.n).toBe(0);
  });
});
