/**
 * The sealing statement's cost must not grow with the traces stored: every table it reads besides its own
 * input is probed by key, never scanned whole. The plan is read with EXPLAIN from the statement exactly as
 * `insertTraces` sends it (a guard and the throttle on every row), over tables holding thousands of rows.
 */
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAgent } from '../../src/engine/store/agents.js';
import { insertTraces, type SealWrite } from '../../src/engine/store/traces.js';
import { newTraceId } from '../../src/core/trace-id.js';
import { testStore, type TestStore } from '../helpers/db.js';

let store: TestStore;
beforeAll(async () => {
  store = await testStore();
});
afterAll(async () => store?.close());

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}
const scans = (node: PlanNode): string[] => [
  ...(node['Node Type'] === 'Seq Scan' && node['Relation Name'] ? [node['Relation Name']] : []),
  ...(node.Plans ?? []).flatMap(scans),
];

describe("the sealing statement's plan", () => {
  it('probes the registry, the heartbeat marks, the idempotency records and the counts by key, with thousands of rows stored', async () => {
    const agents = [];
    for (let i = 0; i < 8; i++)
      agents.push(await registerAgent(store.sql, { name: `plan-${i}`, max_notional: 1e6, models: [{ model_id: 'm', model_hash_hex: 'a'.repeat(64) }] }));
    // History: idempotency records, heartbeat marks and counts of other agents.
    await store.sql`insert into agents (agent_id, name, max_notional) select gen_random_uuid(), 'history', 1 from generate_series(1, 3000)`;
    await store.sql`insert into agent_models (agent_id, model_id, model_hash_hex) select agent_id, 'm', repeat('d', 64) from agents where name = 'history'`;
    await store.sql`insert into heartbeat_marks (agent_id, last_sequence_id) select agent_id, 1 from agents where name = 'history'`;
    await store.sql`insert into agent_order_rate (agent_id, second, orders) select agent_id, 1, 1 from agents where name = 'history'`;
    await store.sql`insert into trace_idempotency (agent_id, client_order_id, order_hash, trace_id, txn_time, response)
                    select agent_id, 'o-' || g, 'h', gen_random_uuid(), now(), '{}' from agents, generate_series(1, 3) g where name = 'history'`;
    await store.sql`analyze`;

    let captured: { query: string; params: unknown[] } | null = null;
    const spy = postgres(store.url, {
      max: 1,
      onnotice: () => {},
      debug: (_c, query, params) => {
        if (query.includes('jsonb_to_recordset')) captured = { query, params: params as unknown[] };
      },
    });
    try {
      const now = Date.now();
      const writes: SealWrite[] = agents.map((a, i) => {
        const id = newTraceId(now);
        return {
          heartbeatSequence: 5 + i,
          rate: { max: 20, second: Math.floor(now / 1000) },
          guard: { model_id: 'm', model_hash_hex: 'a'.repeat(64), max_notional: 1e6, allowed_regimes: null },
          trace: {
            trace_id: id,
            txn_time: new Date(now),
            agent_id: a.agent_id,
            client_order_id: randomUUID(),
            status: 'PENDING',
            action: 'Long',
            asset: 'SPY',
            quantity: 1,
            notional: 100,
            notional_currency: 'USD',
            reasoning_hash: 'c'.repeat(64),
            sealed: '{}',
            regulatory: null,
            regulatory_salt: null,
            regulatory_enc: null,
            policy_result: 'PASS',
            order_hash: 'b'.repeat(64),
            response: { trace_id: id, reasoning_hash: 'c'.repeat(64), authorized: true, shadow_blocked: false },
          },
        };
      });
      expect(await insertTraces(spy, writes)).toEqual(writes.map(() => 'inserted'));
      const sent = captured as { query: string; params: unknown[] } | null;
      if (!sent) throw new Error('the sealing statement was not seen');
      const [row] = await spy.unsafe<Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>>(`explain (format json) ${sent.query}`, sent.params as never[]);
      const plan = row?.['QUERY PLAN'][0]?.Plan;
      if (!plan) throw new Error('no plan');
      expect(scans(plan), 'tables scanned whole by the sealing statement').toEqual([]);
    } finally {
      await spy.end();
    }
  });
});
