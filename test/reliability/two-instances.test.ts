/**
 * Guarantee: N instances behind a load balancer answer as one. Two server processes on one database, each
 * request of a race sent to both at once, give the answers one instance gives: one bind of a trace (the other
 * 409), one order per heartbeat (the other `heartbeat_replayed`), one trace per client_order_id (both answered
 * with it), shadow mode switched on either instance enforced by both, and the limits counted once across
 * both: the engine's per-agent order throttle and the signal service's per-key daily limit. Both instances
 * start at once on an empty database, so they also migrate it together.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAccountKey } from '../../src/signals/ops/keys.js';
import { TIER_SPECS } from '../../src/signals/tiers.js';
import { privateStore, type PrivateStore } from './support/cluster.js';
import {
  authorizeRequest,
  bearer,
  bindRequest,
  engineSettings,
  heartbeat,
  publishRegime,
  registerAgent,
  type Agent,
  type EngineSettings,
  type Regime,
} from './support/engine.js';
import { Client, type Answer } from './support/http.js';
import { startServerProcess, type ServerProcess } from './support/server.js';
import { removeTempDirs } from './support/temp.js';

/** The policy's per-agent message throttle in this file (orders per second). */
const ORDERS_PER_SECOND = 5;

let store: PrivateStore;
let settings: EngineSettings;
let servers: ServerProcess[] = [];
let a: Client;
let b: Client;
let regime: Regime;

const body = (x: Answer): Record<string, unknown> => JSON.parse(x.body) as Record<string, unknown>;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  store = await privateStore();
  settings = await engineSettings(store.url, { policy: { max_orders_per_second: ORDERS_PER_SECOND } });
  servers = await Promise.all([startServerProcess(settings.env, 'instance-a'), startServerProcess(settings.env, 'instance-b')]);
  a = new Client(servers[0]!.url, 16);
  b = new Client(servers[1]!.url, 16);
  regime = await publishRegime(a, settings.ownerToken);
}, 180_000);
afterAll(async () => {
  a?.close();
  b?.close();
  await Promise.all(servers.map((s) => s.stop()));
  await store?.close();
  await removeTempDirs();
});

/** A new agent (registered through either instance), without waiting out the throttle of an earlier one. */
const agent = (through: Client = a): Promise<Agent> => registerAgent(through, settings.ownerToken);

describe('two instances on one database', () => {
  it('bind: of two binds of one trace, one through each instance, exactly one binds and the other is 409', async () => {
    for (let round = 0; round < 6; round++) {
      const ag = await agent();
      const auth = await a.send(authorizeRequest(settings, ag, regime));
      expect(auth.status, auth.body).toBe(200);
      const traceId = body(auth).trace_id as string;
      const [first, second] = await Promise.all([a.send(bindRequest(ag, traceId)), b.send(bindRequest(ag, traceId))]);
      const answers = [first!, second!];
      expect(answers.map((x) => x.status).sort(), answers.map((x) => x.body).join('\n')).toEqual([200, 409]);
      expect(body(answers.find((x) => x.status === 409)!)).toMatchObject({ code: 'trace_already_bound' });
      const winner = body(answers.find((x) => x.status === 200)!);
      const [row] = await store.admin<Array<{ final_proof: string }>>`select final_proof from traces where trace_id = ${traceId}`;
      expect(row?.final_proof).toBe(winner.final_proof);
    }
  }, 120_000);

  it('heartbeat replay: one signed heartbeat on two orders, one through each instance, seals exactly one', async () => {
    for (let round = 0; round < 6; round++) {
      const ag = await agent(round % 2 === 0 ? a : b);
      const hb = heartbeat(settings, ag, regime);
      const orders = [authorizeRequest(settings, ag, regime, { heartbeat: hb }), authorizeRequest(settings, ag, regime, { heartbeat: hb })];
      const answers = await Promise.all([a.send(orders[0]!), b.send(orders[1]!)]);
      expect(answers.map((x) => x.status).sort(), answers.map((x) => x.body).join('\n')).toEqual([200, 403]);
      expect(body(answers.find((x) => x.status === 403)!)).toMatchObject({ code: 'heartbeat_replayed' });
      const [count] = await store.admin<Array<{ n: number }>>`select count(*)::int as n from traces where agent_id = ${ag.agentId}`;
      expect(count?.n).toBe(1);
    }
  }, 120_000);

  it('idempotency: one order sent through both instances at once is sealed once and both get its trace', async () => {
    for (let round = 0; round < 6; round++) {
      const ag = await agent();
      const order = authorizeRequest(settings, ag, regime);
      const answers = await Promise.all([a.send(order), b.send(order)]);
      expect(
        answers.map((x) => x.status),
        answers.map((x) => x.body).join('\n'),
      ).toEqual([200, 200]);
      expect(body(answers[0]!)).toEqual(body(answers[1]!));
      const [count] = await store.admin<Array<{ n: number }>>`select count(*)::int as n from traces where agent_id = ${ag.agentId}`;
      expect(count?.n).toBe(1);
      // The same client_order_id for another order is refused by either instance.
      const other = authorizeRequest(settings, ag, regime, { client_order_id: order.clientOrderId, quantity: 50, notional: 9500 });
      const conflict = await b.send(other);
      expect(conflict.status, conflict.body).toBe(409);
      expect(body(conflict)).toMatchObject({ code: 'client_order_id_conflict' });
    }
  }, 120_000);

  it('shadow mode: switched on through one instance, the other lets a refused order pass marked; switched off, refuses it again', async () => {
    const ag = await agent();
    // Over the agent's notional cap (1,000,000): refused unless shadow mode is on.
    const tooBig = (): ReturnType<typeof authorizeRequest> =>
      authorizeRequest(settings, ag, regime, { quantity: 10_000, limit_price: 200, notional: 2_000_000 });
    const refused = await b.send(tooBig());
    expect(body(refused)).toMatchObject({ code: 'notional_cap_exceeded' });

    const set = async (through: Client, enabled: boolean): Promise<void> => {
      await through.json(
        {
          method: 'POST',
          path: '/engine/admin/shadow-mode',
          headers: bearer(settings.ownerToken),
          body: enabled ? { enabled, reason: 'reliability' } : { enabled },
        },
        200,
      );
    };
    /** The other instance's answer to an order over the cap, once it has taken the change (within a few refreshes). */
    const answerOf = async (through: Client, expected: number): Promise<Answer> => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const x = await through.send(tooBig());
        if (x.status === expected || Date.now() > deadline) return x;
        await sleep(300); // the throttle: at most ORDERS_PER_SECOND orders a second
      }
    };
    await set(a, true);
    const passed = await answerOf(b, 200);
    expect(passed.status, passed.body).toBe(200);
    expect(body(passed)).toMatchObject({ authorized: true, shadow_blocked: true });
    await set(b, false);
    const again = await answerOf(a, 403);
    expect(body(again)).toMatchObject({ code: 'notional_cap_exceeded' });
  }, 60_000);

  it(`the order throttle (${ORDERS_PER_SECOND} a second per agent) counts the orders of both instances together`, async () => {
    const ag = await agent();
    const answers: Answer[] = [];
    // Orders of one agent through both instances in turn, as fast as they are answered, for a second or more,
    // until the throttle has refused some.
    const started = Date.now();
    const refusedSome = (): boolean => answers.some((x) => x.status === 403);
    for (let i = 0; Date.now() - started < 1000 || (!refusedSome() && Date.now() - started < 15_000); i++) {
      answers.push(await (i % 2 === 0 ? a : b).send(authorizeRequest(settings, ag, regime)));
    }
    const denied = answers.filter((x) => x.status === 403);
    expect(denied.length, 'the throttle refused nothing: too few orders a second to test it').toBeGreaterThan(0);
    expect(answers.filter((x) => x.status !== 200 && x.status !== 403)).toEqual([]);
    for (const d of denied) expect(body(d)).toMatchObject({ code: 'order_rate_exceeded' });
    // Per second of the engine's clock (the trace's txn_time): never more than the limit sealed, and exactly
    // the limit in a second that refused orders.
    const rows = await store.admin<Array<{ second: number; n: number }>>`
      select floor(extract(epoch from txn_time))::bigint as second, count(*)::int as n from traces where agent_id = ${ag.agentId} group by 1`;
    for (const r of rows) expect(r.n).toBeLessThanOrEqual(ORDERS_PER_SECOND);
    expect(rows.reduce((sum, r) => sum + r.n, 0)).toBe(answers.length - denied.length);
    expect(Math.max(...rows.map((r) => r.n))).toBe(ORDERS_PER_SECOND);
  }, 60_000);

  it("a new key's first requests, all at once through both instances, count once against its daily limit, none refused as from another address", async () => {
    const limit = TIER_SPECS.free.dailyLimit!;
    const key = (await issueAccountKey(store.admin, { email: `two-${randomUUID().slice(0, 8)}@example.test`, tier: 'free' })).api_key;
    const answers = await Promise.all(
      Array.from({ length: limit + 30 }, (_, i) => (i % 2 === 0 ? a : b).send({ method: 'GET', path: '/v1/account', headers: { 'x-signals-key': key } })),
    );
    const statuses = answers.map((x) => x.status);
    expect(answers.filter((x) => x.status !== 200 && x.status !== 429).map((x) => `${x.status} ${x.error ?? x.body}`)).toEqual([]);
    expect(statuses.filter((s) => s === 200)).toHaveLength(limit);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    for (const x of answers.filter((y) => y.status === 429)) expect(body(x)).toMatchObject({ code: 'rate_limited' });
  }, 60_000);
});
