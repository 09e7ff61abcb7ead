/**
 * One busy agent's orders share sealing statements (src/engine/store/batching.ts, src/engine/store/traces.ts
 * `insertTraces` and `maySealTogether`) and each still gets the answer it would get sealed alone, one after
 * another. The property: random interleavings of a hot agent's orders with two others' (retries of one
 * client_order_id, heartbeat sequences rising, repeated or falling, the message throttle on or off across two
 * seconds, facts gone stale), sent at once through the engine's sealing queue on one store and one at a time,
 * awaited, in the same order on another, give the same outcome for every order and the same rows in every table
 * the statement writes: traces, idempotency records, heartbeat marks, throttle counts, transparency-log leaves.
 * Likewise for an agent with an open-exposure cap: its orders judged by the cap many under one lock
 * (src/engine/store/exposure-seal.ts) give the answers and rows of one order per transaction.
 */
import fc from 'fast-check';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineBatching } from '../../src/engine/store/batching.js';
import { insertTraces, type SealWrite } from '../../src/engine/store/traces.js';
import { countOrders } from '../../src/engine/store/rate-and-marks.js';
import { sealUnderCaps, type CappedOrder } from '../../src/engine/store/exposure-seal.js';
import { deny, PASS, type Verdict } from '../../src/engine/denials.js';
import { newTraceId } from '../../src/core/trace-id.js';
import { testStore, type TestStore } from '../helpers/db.js';

const MODEL = { model_id: 'm', model_hash_hex: 'a'.repeat(64) };
const MAX_NOTIONAL = 1e6;
/** A fixed clock: the seals of one run are two whole seconds apart at most. */
const SECOND = 1_900_000_000;
const RUNS = 60;

let fast: TestStore;
let reference: TestStore;
/** The fast store, through a client that counts the sealing statements' rows that followed one of their agent's. */
let fastSql: postgres.Sql;
let sameAgentRows = 0;
beforeAll(async () => {
  [fast, reference] = await Promise.all([testStore(), testStore()]);
  fastSql = postgres(fast.url, {
    max: 4,
    onnotice: () => {},
    debug: (_connection, query, params) => {
      if (!query.includes('jsonb_to_recordset')) return;
      const input = params[0];
      const rows = (typeof input === 'string' ? JSON.parse(input) : input) as Array<{ agent_id: string }>;
      sameAgentRows += rows.length - new Set(rows.map((r) => r.agent_id)).size;
    },
  });
});
afterAll(async () => Promise.all([fastSql?.end(), fast?.close(), reference?.close()]));

/** The same agents, ids included, in both stores (with an open-exposure cap: `cap`). */
async function agents(n: number, cap: number | null = null): Promise<string[]> {
  const ids = Array.from({ length: n }, () => crypto.randomUUID());
  for (const s of [fast, reference]) {
    await s.sql`insert into agents (agent_id, name, max_notional, max_open_notional)
                select id, 'hot-seal', ${MAX_NOTIONAL}, ${cap} from unnest(${ids}::uuid[]) as id`;
    await s.sql`insert into agent_models (agent_id, model_id, model_hash_hex) select id, ${MODEL.model_id}, ${MODEL.model_hash_hex} from unnest(${ids}::uuid[]) as id`;
  }
  return ids;
}

interface Order {
  agent: number;
  coid: number;
  seq: number | null;
  second: 0 | 1;
  stale: boolean;
  variant: number;
}

function sealWrite(o: Order, i: number, agentIds: string[], throttle: number | null): SealWrite {
  const at = (SECOND + o.second) * 1000 + i;
  const id = newTraceId(at);
  const hash = (c: string): string => c.repeat(64);
  return {
    heartbeatSequence: o.seq,
    rate: throttle === null ? null : { max: throttle, second: SECOND + o.second },
    guard: { ...MODEL, max_notional: o.stale ? MAX_NOTIONAL + 1 : MAX_NOTIONAL, allowed_regimes: null },
    trace: {
      trace_id: id,
      txn_time: new Date(at),
      agent_id: agentIds[o.agent] as string,
      client_order_id: `order-${o.coid}`,
      status: 'PENDING',
      action: 'Long',
      asset: 'SPY',
      quantity: 1 + o.variant,
      notional: 100,
      notional_currency: 'USD',
      reasoning_hash: hash('0123456789abcdef'[i % 16] as string),
      sealed: JSON.stringify({ i }),
      regulatory: null,
      regulatory_salt: null,
      regulatory_enc: null,
      policy_result: 'PASS',
      order_hash: hash('bcd'[o.variant] as string),
      response: { trace_id: id, reasoning_hash: 'c'.repeat(64), authorized: true, shadow_blocked: false },
    },
  };
}

/** Every row the sealing statement writes for these agents, in a stable order. */
async function rows(s: TestStore, ids: string[]): Promise<unknown> {
  const sql = s.sql;
  return {
    traces: await sql`select trace_id, txn_time, agent_id, client_order_id, status, verification_status, action, asset, quantity, notional,
                             reasoning_hash, sealed, policy_result from traces where agent_id = any(${ids}::uuid[]) order by trace_id`,
    idempotency: await sql`select agent_id, client_order_id, order_hash, trace_id, txn_time, response from trace_idempotency
                           where agent_id = any(${ids}::uuid[]) order by agent_id, client_order_id`,
    marks: await sql`select agent_id, last_sequence_id from heartbeat_marks where agent_id = any(${ids}::uuid[]) order by agent_id`,
    counts: await sql`select agent_id, second, orders from agent_order_rate where agent_id = any(${ids}::uuid[]) order by agent_id, second`,
    // In each agent's order (statements of different agents may commit in either order).
    leaves: await sql`select trace_id, agent_id, kind, data from log_queue where agent_id = any(${ids}::uuid[]) order by agent_id, id`,
  };
}

const order = fc.record({
  // The hot agent (0) sends most orders.
  agent: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constant(2) }),
  // Some retries of one client_order_id among mostly new ones.
  coid: fc.integer({ min: 0, max: 39 }),
  seq: fc.integer({ min: 1, max: 16 }),
  second: fc.constantFrom<0 | 1>(0, 1),
  stale: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  variant: fc.integer({ min: 0, max: 2 }),
});
const scenario = fc.record({
  orders: fc.array(order, { minLength: 1, maxLength: 60, size: 'max' }),
  layer2: fc.boolean(),
  // The throttle's limit, or none.
  throttle: fc.option(fc.integer({ min: 1, max: 8 }), { nil: null }),
  inFlight: fc.integer({ min: 1, max: 3 }),
  // Heartbeats: rising per agent (as an MTA sends them), or as drawn (repeats and falls).
  rising: fc.boolean(),
});

describe("one busy agent's orders in shared sealing statements", () => {
  it('share statements: 30 orders of one agent sent at once are sealed by two statements, each answered', async () => {
    const [hot] = await agents(1);
    const batching = engineBatching(fast.sql, 1);
    const writes = Array.from({ length: 30 }, (_, i) =>
      sealWrite({ agent: 0, coid: i, seq: null, second: 0, stale: false, variant: 0 }, i, [hot as string], 100),
    );
    const outcomes = await Promise.all(writes.map((w) => batching.seals.submit(w)));
    expect(outcomes).toEqual(writes.map(() => 'inserted'));
    // The first alone (a free slot), the 29 that queued behind it together.
    expect(batching.seals.stats).toMatchObject({ batches: 2, items: 30 });
    const [count] = await fast.sql<Array<{ orders: number }>>`select orders from agent_order_rate where agent_id = ${hot as string}`;
    expect(count?.orders).toBe(30);
  });

  it('answer each order and store each row as sealing them one at a time, in the same order, does', async () => {
    sameAgentRows = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async ({ orders, layer2, throttle, inFlight, rising }) => {
        const ids = await agents(3);
        const next = [0, 0, 0];
        const writes = orders.map((o, i) => {
          const seq = !layer2 ? null : rising ? (next[o.agent] = (next[o.agent] ?? 0) + 1 + (o.seq % 3)) : o.seq;
          return sealWrite({ ...o, seq }, i, ids, throttle);
        });
        const batching = engineBatching(fastSql, inFlight);
        const together = await Promise.all(writes.map((w) => batching.seals.submit(w)));
        const alone = [];
        for (const w of writes) alone.push(...(await insertTraces(reference.sql, [w])));
        expect(together).toEqual(alone);
        expect(await rows(fast, ids)).toEqual(await rows(reference, ids));
      }),
      { numRuns: RUNS, seed: 20_261_207 },
    );
    // Not vacuous: an agent's orders did share statements, several times a run on average.
    expect(sameAgentRows).toBeGreaterThan(RUNS * 3);
  }, 120_000);

  it("judge a capped agent's orders many under one lock, each as judged alone after the ones before it", async () => {
    const CAP = 1_000;
    const capped = fc.record({
      agent: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constant(1) }),
      coid: fc.integer({ min: 0, max: 29 }),
      seq: fc.integer({ min: 1, max: 16 }),
      notional: fc.integer({ min: 50, max: 450 }),
      // Refused by another rule first (sealed SHADOW_HALTED in shadow mode, else refused before the cap).
      failing: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    });
    let sameAgent = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          orders: fc.array(capped, { minLength: 1, maxLength: 40, size: 'max' }),
          layer2: fc.boolean(),
          shadow: fc.boolean(),
          inFlight: fc.integer({ min: 1, max: 3 }),
        }),
        async ({ orders, layer2, shadow, inFlight }) => {
          const ids = await agents(2, CAP);
          const writes: CappedOrder[] = orders.map((o, i) => {
            const verdict: Verdict = o.failing ? deny('notional_cap_exceeded', 'test') : PASS;
            // One trace id per order, whichever store seals it.
            const base = sealWrite({ agent: o.agent, coid: o.coid, seq: null, second: 0, stale: false, variant: 0 }, i, ids, null).trace;
            return {
              agentId: ids[o.agent] as string,
              clientOrderId: `order-${o.coid}`,
              notional: o.notional,
              cap: CAP,
              heartbeatSequence: layer2 ? o.seq : null,
              verdict,
              shadow,
              build: (final) => {
                const row = { ...base, notional: o.notional, status: final.ok ? ('PENDING' as const) : ('SHADOW_HALTED' as const) };
                return { row: { ...row, policy_result: final.ok ? 'PASS' : `FAIL:${final.code}` }, response: { ...row.response, shadow_blocked: !final.ok } };
              },
            };
          });
          const batching = engineBatching(fastSql, inFlight);
          const together = await Promise.all(writes.map((w) => batching.capped.submit(w)));
          const alone = [];
          for (const w of writes) alone.push(...(await sealUnderCaps(reference.sql, [w])));
          expect(together).toEqual(alone);
          expect(await rows(fast, ids)).toEqual(await rows(reference, ids));
          sameAgent += batching.capped.stats.items - batching.capped.stats.batches;
        },
      ),
      { numRuns: 40, seed: 20_261_208 },
    );
    // Not vacuous: capped orders did share transactions.
    expect(sameAgent).toBeGreaterThan(100);
  }, 120_000);

  it("count one agent's orders many to a statement, each as counted alone in order", async () => {
    const [a, b] = await agents(2);
    const batching = engineBatching(fast.sql, 1);
    const orders = Array.from({ length: 20 }, (_, i) => ({ agentId: (i % 4 === 3 ? b : a) as string, second: SECOND + (i < 10 ? 0 : 1) }));
    const together = await Promise.all(orders.map((o) => batching.orderCounts.submit(o)));
    const alone = [];
    for (const o of orders) alone.push(...(await countOrders(reference.sql, [o])));
    expect(together).toEqual(alone);
    expect(together.slice(0, 10)).toEqual([1, 2, 3, 1, 4, 5, 6, 2, 7, 8]);
    expect(batching.orderCounts.stats.batches).toBe(2);
  });
});
