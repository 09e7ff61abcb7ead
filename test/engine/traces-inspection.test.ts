/**
 * The officer's listings: `GET /engine/pending` (PENDING older than age_seconds, default 3600),
 * `GET /engine/orphans` (DIVERGENT, EXPIRED, MISMATCH and ORPHAN; never PENDING or MATCHED) and
 * `GET /engine/shadow-violations` (SHADOW_HALTED), each with its scope and validation.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweep } from '../../src/engine/sweeper.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

interface Listing {
  count: number;
  has_more: boolean;
  traces: Array<{ trace_id: string; agent_id: string; status: string; verification_status: string }>;
}

type Agent = { agent_id: string; token: string };

async function authorize(h: EngineHarness, who: Agent, overrides: Record<string, unknown> = {}): Promise<{ trace_id: string; shadow_blocked: boolean }> {
  const res = await h.call('POST', '/engine/authorize', h.order(who.agent_id, overrides), who.token);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function bind(h: EngineHarness, who: Agent, traceId: string, extra: Record<string, unknown> = {}): Promise<void> {
  const res = await h.call(
    'POST',
    '/engine/bind-execution',
    { trace_id: traceId, exchange_tx_id: `TX-${randomUUID()}`, execution_status: 'Filled', ...extra },
    who.token,
  );
  expect(res.statusCode, res.body).toBe(200);
}

async function get(h: EngineHarness, url: string, token?: string): Promise<Listing> {
  const res = await h.call('GET', url, undefined, token);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Listing;
}

const ids = (l: Listing): string[] => l.traces.map((t) => t.trace_id);

describe('GET /engine/pending', () => {
  let h: EngineHarness;
  let A: Agent;
  let B: Agent;
  let t0: number;
  let p1: string;
  let m1: string;
  let pb: string;

  beforeAll(async () => {
    h = await engineHarness();
    await h.publishRegime('expansion');
    A = await h.registerAgent();
    B = await h.registerAgent();
    t0 = h.clock.now;
    p1 = (await authorize(h, A)).trace_id;
    m1 = (await authorize(h, A)).trace_id;
    pb = (await authorize(h, B)).trace_id;
    await bind(h, A, m1);
  });
  afterAll(async () => h?.close());

  it('by default lists PENDING traces older than 3600 seconds, not younger ones', async () => {
    h.clock.now = t0 + 3_599_000;
    expect((await get(h, '/engine/pending')).count).toBe(0);
    h.clock.now = t0 + 3_601_000;
    const body = await get(h, '/engine/pending');
    expect(body.has_more).toBe(false);
    expect(ids(body).sort()).toEqual([p1, pb].sort());
    expect(ids(body)).not.toContain(m1);
    expect(body.traces.every((t) => t.status === 'PENDING' && t.verification_status === 'Pending')).toBe(true);
  });

  it('honours age_seconds', async () => {
    h.clock.now = t0 + 61_000;
    expect(ids(await get(h, '/engine/pending?age_seconds=60')).sort()).toEqual([p1, pb].sort());
    expect((await get(h, '/engine/pending?age_seconds=62')).count).toBe(0);
    h.clock.now = t0 + 3_601_000;
  });

  it('a fresh trace is not pending-stale until it ages', async () => {
    h.clock.now = t0 + 3_601_000;
    const fresh = (await authorize(h, A)).trace_id;
    expect(ids(await get(h, '/engine/pending?age_seconds=1'))).not.toContain(fresh);
    h.clock.now += 2000;
    expect(ids(await get(h, '/engine/pending?age_seconds=1'))).toContain(fresh);
  });

  it('respects limit and has_more', async () => {
    h.clock.now = t0 + 10_000_000;
    const body = await get(h, '/engine/pending?limit=1');
    expect(body).toMatchObject({ count: 1, has_more: true });
  });

  it("an agent-bound token sees only its agents' pending traces", async () => {
    h.clock.now = t0 + 3_601_000;
    const body = await get(h, '/engine/pending', B.token);
    expect(ids(body)).toEqual([pb]);
  });

  it.each(['age_seconds=-1', 'age_seconds=abc', 'age_seconds=1.5', 'limit=5001', 'status=PENDING'])('422 for ?%s', async (q) => {
    const res = await h.call('GET', `/engine/pending?${q}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('validation_failed');
  });
});

describe('GET /engine/orphans', () => {
  let h: EngineHarness;
  let A: Agent;
  const t: Record<string, string> = {};

  beforeAll(async () => {
    h = await engineHarness();
    await h.publishRegime('expansion');
    A = await h.registerAgent();
    t.expired = (await authorize(h, A)).trace_id;
    h.clock.now += h.config.traceExpiryMs + 1000;
    t.pending = (await authorize(h, A)).trace_id;
    t.matched = (await authorize(h, A)).trace_id;
    t.divergent = (await authorize(h, A)).trace_id;
    t.mismatch = (await authorize(h, A)).trace_id;
    await bind(h, A, t.matched, { asset: 'AAPL', executed_quantity: 100 });
    await bind(h, A, t.divergent, { asset: 'MSFT' });
    await bind(h, A, t.mismatch, { executed_side: 'Short' });
    expect((await sweep(h.store.sql, h.clock.now, h.config.traceExpiryMs)).expired).toBe(1);
    // An ORPHAN (an exchange execution with no trace), as reconciliation records it.
    t.orphan = randomUUID();
    await h.store.sql`
      insert into traces (trace_id, txn_time, agent_id, client_order_id, status, verification_status, action, asset, quantity,
                          notional, notional_currency, reasoning_hash, sealed, policy_result, exchange_tx_id)
      select ${t.orphan}, txn_time + interval '1 second', agent_id, 'orphan-1', 'ORPHAN', 'Orphan', action, asset, quantity,
             notional, notional_currency, reasoning_hash, sealed, policy_result, 'EXCH-ORPHAN'
      from traces where trace_id = ${t.mismatch}`;
  });
  afterAll(async () => h?.close());

  it('returns DIVERGENT, EXPIRED, MISMATCH and ORPHAN traces, newest first, and not PENDING or MATCHED', async () => {
    const body = await get(h, '/engine/orphans');
    const listed = ids(body);
    expect(listed).toEqual(expect.arrayContaining([t.divergent, t.expired, t.mismatch, t.orphan]));
    expect(listed).toHaveLength(4);
    expect(listed).not.toContain(t.pending);
    expect(listed).not.toContain(t.matched);
    expect(listed[0]).toBe(t.orphan);
    expect(listed[3]).toBe(t.expired);
    const status = Object.fromEntries(body.traces.map((x) => [x.trace_id, x.status]));
    expect(status).toEqual({ [t.divergent!]: 'DIVERGENT', [t.expired!]: 'EXPIRED', [t.mismatch!]: 'MISMATCH', [t.orphan!]: 'ORPHAN' });
  });

  it('an expired trace that is bound later stays in the orphans listing as DIVERGENT', async () => {
    await bind(h, A, t.expired!, { asset: 'AAPL', executed_quantity: 100 });
    const body = await get(h, '/engine/orphans');
    expect(body.traces.find((x) => x.trace_id === t.expired)).toMatchObject({ status: 'DIVERGENT', verification_status: 'Divergent' });
  });

  it('an agent-bound token of another agent sees none of them', async () => {
    const other = await h.registerAgent();
    expect((await get(h, '/engine/orphans', other.token)).count).toBe(0);
    expect((await get(h, '/engine/orphans', A.token)).count).toBe(4);
  });

  it('limit and has_more', async () => {
    expect(await get(h, '/engine/orphans?limit=3')).toMatchObject({ count: 3, has_more: true });
    expect((await h.call('GET', '/engine/orphans?limit=0')).statusCode).toBe(422);
    expect((await h.call('GET', '/engine/orphans?status=PENDING')).statusCode).toBe(422);
  });
});

describe('GET /engine/shadow-violations', () => {
  let h: EngineHarness;
  let A: Agent;
  let B: Agent;
  const t: Record<string, string> = {};
  /** Over the agent's 200 000 cap: a policy violation. */
  const tooBig = { quantity: 2000, limit_price: 190, notional: 380_000 };

  beforeAll(async () => {
    h = await engineHarness();
    await h.publishRegime('expansion');
    A = await h.registerAgent();
    B = await h.registerAgent();
    t.normal = (await authorize(h, A)).trace_id;
    expect((await h.call('POST', '/engine/authorize', h.order(A.agent_id, tooBig), A.token)).statusCode).toBe(403);
    await h.call('POST', '/engine/admin/shadow-mode', { enabled: true, reason: 'dry run of policy 1.0.0' });
    const s1 = await authorize(h, A, tooBig);
    h.clock.now += 1000;
    const s2 = await authorize(h, B, tooBig);
    const passing = await authorize(h, A);
    await h.call('POST', '/engine/admin/shadow-mode', { enabled: false });
    expect([s1.shadow_blocked, s2.shadow_blocked, passing.shadow_blocked]).toEqual([true, true, false]);
    t.s1 = s1.trace_id;
    t.s2 = s2.trace_id;
    t.passing = passing.trace_id;
  });
  afterAll(async () => h?.close());

  it('returns the SHADOW_HALTED traces, newest first, and no others', async () => {
    const body = await get(h, '/engine/shadow-violations');
    expect(ids(body)).toEqual([t.s2, t.s1]);
    expect(body.traces.every((x) => x.status === 'SHADOW_HALTED' && x.verification_status === 'Pending')).toBe(true);
    expect(body.has_more).toBe(false);
  });

  it('a shadow-halted trace stays listed after bind, is never pending, and is an orphan once its bind diverges', async () => {
    expect(ids(await get(h, '/engine/orphans'))).not.toContain(t.s1);
    await bind(h, A, t.s1!, { asset: 'MSFT' });
    const body = await get(h, '/engine/shadow-violations');
    expect(body.traces.find((x) => x.trace_id === t.s1)).toMatchObject({ status: 'SHADOW_HALTED', verification_status: 'Divergent' });
    expect(ids(await get(h, '/engine/orphans'))).toContain(t.s1);
    h.clock.now += 7_200_000;
    const pending = ids(await get(h, '/engine/pending'));
    expect(pending).toContain(t.normal);
    expect(pending).not.toContain(t.s2);
  });

  it("an agent-bound token sees only its own agent's violations", async () => {
    expect(ids(await get(h, '/engine/shadow-violations', B.token))).toEqual([t.s2]);
    expect(ids(await get(h, '/engine/shadow-violations', A.token))).toEqual([t.s1]);
  });

  it('401 without a token; 422 for an unknown query parameter', async () => {
    expect((await h.call('GET', '/engine/shadow-violations', undefined, null)).statusCode).toBe(401);
    expect((await h.call('GET', '/engine/shadow-violations?agent_id=x')).statusCode).toBe(422);
  });
});
