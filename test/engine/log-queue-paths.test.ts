/**
 * Every statement that writes a hash into traces queues its transparency-log leaf in the same statement
 * (migration 0023): the sealing of an authorized order (its reasoning_hash), its bind (its final_proof), and an
 * ORPHAN trace, recorded by `POST /engine/admin/reconcile` or by a drop-copy batch (both, the reasoning_hash
 * first). What changes nothing (a replayed authorize, a second bind, the same drop copy again) queues nothing.
 * The harness runs no sequencer, so the queue shows exactly what each statement wrote.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyBatch } from '../../src/engine/dropcopy/apply.js';
import { ACTOR, fillOf, SESSION_KEY, sessionRow } from '../helpers/dropcopy-inbound.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
let agent: { agent_id: string; token: string };

interface Queued {
  id: number;
  kind: string;
  data: string;
}

const queued = (traceId: string): Promise<Queued[]> =>
  h.store.sql<Queued[]>`select id::int as id, kind, encode(data, 'hex') as data from log_queue where trace_id = ${traceId} order by id`;

const traceHashes = async (traceId: string): Promise<{ reasoning_hash: string; final_proof: string | null }> => {
  const [row] = await h.store.sql<Array<{ reasoning_hash: string; final_proof: string | null }>>`
    select reasoning_hash, final_proof from traces where trace_id = ${traceId}`;
  if (!row) throw new Error(`no trace ${traceId}`);
  return row;
};

beforeAll(async () => {
  h = await engineHarness({ max: 10 });
  await h.publishRegime('expansion');
  agent = await h.registerAgent();
  const [leaves] = await h.store.sql<Array<{ n: number }>>`select count(*)::int as n from log_leaves`;
  expect(leaves?.n).toBe(0);
});
afterAll(async () => h?.close());

describe('the transparency-log queue', () => {
  it("gets an authorized trace's reasoning_hash when it is sealed, its final_proof when it is bound, and nothing on a replay or a second bind", async () => {
    const order = h.order(agent.agent_id);
    const auth = await h.call('POST', '/engine/authorize', order, agent.token);
    expect(auth.statusCode, auth.body).toBe(200);
    const traceId = auth.json().trace_id as string;
    const sealed = await traceHashes(traceId);
    expect(await queued(traceId)).toEqual([{ id: expect.any(Number), kind: 'reasoning_hash', data: sealed.reasoning_hash }]);

    const again = await h.call('POST', '/engine/authorize', order, agent.token);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().trace_id).toBe(traceId);
    expect(await queued(traceId)).toHaveLength(1);

    const bindBody = { trace_id: traceId, exchange_tx_id: `Q-${randomUUID()}`, execution_status: 'Filled', execution_time_ms: h.clock.now };
    const bind = await h.call('POST', '/engine/bind-execution', bindBody, agent.token);
    expect(bind.statusCode, bind.body).toBe(200);
    const bound = await traceHashes(traceId);
    expect(bound.final_proof).toMatch(/^[0-9a-f]{64}$/);
    const rows = await queued(traceId);
    expect(rows.map((r) => [r.kind, r.data])).toEqual([
      ['reasoning_hash', bound.reasoning_hash],
      ['final_proof', bound.final_proof],
    ]);
    expect(rows[0]!.id).toBeLessThan(rows[1]!.id);

    const second = await h.call('POST', '/engine/bind-execution', bindBody, agent.token);
    expect(second.statusCode).toBeLessThan(500);
    expect(await queued(traceId)).toHaveLength(2);
  });

  it('gets both leaves of each ORPHAN trace a reconciliation records, one trace after the other, and nothing when it is sent again', async () => {
    const ids = [`Q-R-${randomUUID()}`, `Q-R-${randomUUID()}`];
    const body = {
      executions: ids.map((id) => ({
        exchange_tx_id: id,
        asset: 'AAPL',
        side: 'Long',
        quantity: 10,
        price: 100,
        agent_id: agent.agent_id,
        execution_time: new Date(h.clock.now).toISOString(),
      })),
    };
    const res = await h.call('POST', '/engine/admin/reconcile', body);
    expect(res.statusCode, res.body).toBe(200);
    const created = res.json().orphans_created as Array<{ exchange_tx_id: string; trace_id: string }>;
    expect(created).toHaveLength(2);
    let last = 0;
    for (const o of created) {
      const hashes = await traceHashes(o.trace_id);
      const rows = await queued(o.trace_id);
      expect(rows.map((r) => [r.kind, r.data])).toEqual([
        ['reasoning_hash', hashes.reasoning_hash],
        ['final_proof', hashes.final_proof],
      ]);
      expect(rows[0]!.id).toBeGreaterThan(last);
      last = rows[1]!.id;
    }
    const [before] = await h.store.sql<Array<{ n: number }>>`select count(*)::int as n from log_queue`;
    const again = await h.call('POST', '/engine/admin/reconcile', body);
    expect(again.statusCode, again.body).toBe(200);
    const [after] = await h.store.sql<Array<{ n: number }>>`select count(*)::int as n from log_queue`;
    expect(after?.n).toBe(before?.n);
  });

  it('gets both leaves of each ORPHAN trace a drop-copy batch records, and nothing for a duplicate', async () => {
    await sessionRow(h.store.sql, 1);
    const conn = await h.store.sql.reserve();
    try {
      const policy = h.ctx.policy;
      const execId = `Q-F-${randomUUID()}`;
      const batch = (seq: number) => ({
        sessionKey: SESSION_KEY,
        epoch: 1,
        fills: [fillOf(seq, execId, agent.agent_id)],
        rejects: [],
        watermark: seq + 1,
        lastInboundAt: new Date(),
        policy,
        now: new Date(h.clock.now),
        actor: ACTOR,
      });
      const applied = await applyBatch(conn, batch(1));
      expect(applied.fills).toEqual([expect.objectContaining({ outcome: 'orphan' })]);
      const traceId = applied.fills[0]!.trace_id as string;
      const hashes = await traceHashes(traceId);
      expect((await queued(traceId)).map((r) => [r.kind, r.data])).toEqual([
        ['reasoning_hash', hashes.reasoning_hash],
        ['final_proof', hashes.final_proof],
      ]);

      const [before] = await h.store.sql<Array<{ n: number }>>`select count(*)::int as n from log_queue`;
      const duplicate = await applyBatch(conn, batch(2));
      expect(duplicate.fills).toEqual([expect.objectContaining({ outcome: 'duplicate' })]);
      const [after] = await h.store.sql<Array<{ n: number }>>`select count(*)::int as n from log_queue`;
      expect(after?.n).toBe(before?.n);
    } finally {
      conn.release();
    }
  });

  it('logs exactly the SHA-256 hex digests: log_leaf() takes the strings the 64-digit pattern takes, and no other', async () => {
    const hex = 'a1'.repeat(32);
    const cases = [
      hex,
      '0'.repeat(64),
      'f'.repeat(64),
      hex.toUpperCase(),
      hex.slice(1),
      `${hex}0`,
      `${hex}\n`,
      `\n${hex}`,
      `${hex.slice(2)}é`,
      `${hex.slice(1)}g`,
      `${hex.slice(4)}ff f`,
      '',
      'z'.repeat(64),
      `${hex.slice(3)}\u00e9`,
    ];
    const rows = await h.store.sql<Array<{ v: string; leaf: string | null; pattern: boolean }>>`
      select v, encode(log_leaf(v), 'hex') as leaf, v ~ '^[0-9a-f]{64}$' as pattern from unnest(${cases}::text[]) as c(v)`;
    expect(rows).toHaveLength(cases.length);
    for (const r of rows) expect(r.leaf, JSON.stringify(r.v)).toBe(r.pattern ? r.v : null);
    expect(rows.filter((r) => r.leaf !== null).map((r) => r.v)).toEqual([hex, '0'.repeat(64), 'f'.repeat(64)]);
    const [nul] = await h.store.sql<Array<{ leaf: string | null }>>`select log_leaf(null) as leaf`;
    expect(nul?.leaf).toBeNull();
  });

  it("keeps the message throttle's counts in an unlogged table (no WAL flush to count an order)", async () => {
    const [rel] = await h.store.sql<Array<{ persistence: string }>>`select relpersistence as persistence from pg_class where relname = 'agent_order_rate'`;
    expect(rel?.persistence).toBe('u');
  });
});
