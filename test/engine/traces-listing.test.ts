/**
 * `GET /engine/traces`: each filter (agent_id, from, to, status, search, limit), keyset pages, the ordering (newest first by
 * txn_time, then trace_id), `has_more`, the limits (default 500, max 5000), the exact item fields, and the
 * read scope of an agent-bound client token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

const ITEM_FIELDS = [
  'action',
  'agent_id',
  'asset',
  'final_proof',
  'notional',
  'notional_currency',
  'reasoning_hash',
  'status',
  'trace_id',
  'txn_time',
  'verification_status',
];

interface Item {
  trace_id: string;
  agent_id: string;
  status: string;
  verification_status: string;
  txn_time: string;
  final_proof: string | null;
  [k: string]: unknown;
}

const ids = (body: { traces: Item[] }): string[] => body.traces.map((t) => t.trace_id);

/** Newest first by txn_time, then by trace_id (descending), as the listing promises. */
const newestFirst = (a: { txn_time: string; trace_id: string }, b: { txn_time: string; trace_id: string }): number =>
  Date.parse(b.txn_time) - Date.parse(a.txn_time) || (a.trace_id < b.trace_id ? 1 : a.trace_id > b.trace_id ? -1 : 0);

describe('GET /engine/traces: filters and ordering', () => {
  let h: EngineHarness;
  let A: { agent_id: string; token: string };
  let B: { agent_id: string; token: string };
  let t0: number;
  /** Trace ids by name: a1 at t0, b1 at t0+1s, a2 and a3 both at t0+2s, b2 at t0+3s. */
  const t: Record<string, { trace_id: string; reasoning_hash: string }> = {};
  /** The expected full listing order. */
  let order: string[];

  const authorize = async (who: { agent_id: string; token: string }) => {
    const res = await h.call('POST', '/engine/authorize', h.order(who.agent_id), who.token);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { trace_id: string; reasoning_hash: string };
  };
  const list = async (query: string, token?: string) => {
    const res = await h.call('GET', `/engine/traces${query}`, undefined, token);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { count: number; has_more: boolean; traces: Item[] };
  };

  beforeAll(async () => {
    h = await engineHarness();
    await h.publishRegime('expansion');
    A = await h.registerAgent();
    B = await h.registerAgent();
    t0 = h.clock.now;
    t.a1 = await authorize(A);
    h.clock.now = t0 + 1000;
    t.b1 = await authorize(B);
    h.clock.now = t0 + 2000;
    t.a2 = await authorize(A);
    t.a3 = await authorize(A);
    h.clock.now = t0 + 3000;
    t.b2 = await authorize(B);
    expect(
      (
        await h.call(
          'POST',
          '/engine/bind-execution',
          { trace_id: t.b2!.trace_id, exchange_tx_id: 'TX-b2', execution_status: 'Filled', executed_quantity: 100 },
          B.token,
        )
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await h.call(
          'POST',
          '/engine/bind-execution',
          { trace_id: t.a1!.trace_id, exchange_tx_id: 'TX-a1', execution_status: 'Filled', asset: 'MSFT' },
          A.token,
        )
      ).statusCode,
    ).toBe(200);
    const [hi, lo] = [t.a2!.trace_id, t.a3!.trace_id].sort().reverse();
    order = [t.b2!.trace_id, hi!, lo!, t.b1!.trace_id, t.a1!.trace_id];
  });
  afterAll(async () => h?.close());

  it('lists newest first by txn_time, then trace_id descending for equal txn_times', async () => {
    const body = await list('');
    expect(body).toMatchObject({ count: 5, has_more: false });
    expect(ids(body)).toEqual(order);
    expect([...body.traces].sort(newestFirst).map((x) => x.trace_id)).toEqual(order);
    // a2 and a3 share their txn_time, so only the trace_id decides between them.
    expect(body.traces[1]!.txn_time).toBe(body.traces[2]!.txn_time);
  });

  it("items carry exactly the documented fields, with the trace's values", async () => {
    const body = await list('');
    for (const item of body.traces) expect(Object.keys(item).sort()).toEqual(ITEM_FIELDS);
    const b2 = body.traces.find((x) => x.trace_id === t.b2!.trace_id)!;
    expect(b2).toEqual({
      trace_id: t.b2!.trace_id,
      agent_id: B.agent_id,
      status: 'MATCHED',
      verification_status: 'Matched',
      action: 'Long',
      asset: 'AAPL',
      notional: 19_000,
      notional_currency: 'USD',
      txn_time: new Date(t0 + 3000).toISOString(),
      reasoning_hash: t.b2!.reasoning_hash,
      final_proof: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const b1 = body.traces.find((x) => x.trace_id === t.b1!.trace_id)!;
    expect(b1).toMatchObject({ status: 'PENDING', verification_status: 'Pending', final_proof: null, txn_time: new Date(t0 + 1000).toISOString() });
    expect(body.traces.find((x) => x.trace_id === t.a1!.trace_id)).toMatchObject({ status: 'DIVERGENT', verification_status: 'Divergent' });
  });

  it('filters by agent_id', async () => {
    expect(ids(await list(`?agent_id=${A.agent_id}`))).toEqual(order.filter((id) => [t.a1, t.a2, t.a3].some((x) => x!.trace_id === id)));
    expect(ids(await list(`?agent_id=${B.agent_id}`))).toEqual([t.b2!.trace_id, t.b1!.trace_id]);
  });

  it('filters by from (inclusive, Unix ms)', async () => {
    expect(ids(await list(`?from=${t0 + 1000}`))).toEqual(order.slice(0, 4));
    expect(ids(await list(`?from=${t0 + 1001}`))).toEqual(order.slice(0, 3));
  });

  it('filters by to (inclusive, Unix ms)', async () => {
    expect(ids(await list(`?to=${t0 + 1000}`))).toEqual([t.b1!.trace_id, t.a1!.trace_id]);
    expect(ids(await list(`?to=${t0 + 999}`))).toEqual([t.a1!.trace_id]);
  });

  it('from and to together select a window', async () => {
    expect(ids(await list(`?from=${t0 + 2000}&to=${t0 + 2000}`))).toEqual(order.slice(1, 3));
    expect((await list(`?from=${t0 + 3001}`)).count).toBe(0);
  });

  it('filters by status', async () => {
    expect(ids(await list('?status=MATCHED'))).toEqual([t.b2!.trace_id]);
    expect(ids(await list('?status=DIVERGENT'))).toEqual([t.a1!.trace_id]);
    expect(ids(await list('?status=PENDING'))).toEqual(order.slice(1, 4));
    expect((await list('?status=EXPIRED')).count).toBe(0);
    expect((await list('?status=SHADOW_HALTED')).count).toBe(0);
    expect((await list('?status=ORPHAN')).count).toBe(0);
  });

  it('combines filters', async () => {
    expect(ids(await list(`?agent_id=${B.agent_id}&status=PENDING`))).toEqual([t.b1!.trace_id]);
    expect(ids(await list(`?agent_id=${A.agent_id}&from=${t0 + 1}&status=PENDING`))).toEqual(order.slice(1, 3));
  });

  it('limit cuts the newest-first list and has_more tells that more exist', async () => {
    const two = await list('?limit=2');
    expect(two).toMatchObject({ count: 2, has_more: true });
    expect(ids(two)).toEqual(order.slice(0, 2));
    expect(await list('?limit=4')).toMatchObject({ count: 4, has_more: true });
    expect(await list('?limit=5')).toMatchObject({ count: 5, has_more: false });
    expect(await list('?limit=5000')).toMatchObject({ count: 5, has_more: false });
  });

  it('pages by keyset: before_time and before_trace_id of the last trace give the next page, with equal txn_times split', async () => {
    const seen: string[] = [];
    let cursor = '';
    for (;;) {
      const page = await list(`?limit=2${cursor}`);
      seen.push(...ids(page));
      if (!page.has_more) break;
      const last = page.traces[page.traces.length - 1]!;
      cursor = `&before_time=${Date.parse(last.txn_time)}&before_trace_id=${last.trace_id}`;
    }
    expect(seen).toEqual(order);
    // The page after the first of the two traces at t0+2s holds the second: the cursor splits equal txn_times.
    expect(ids(await list(`?limit=1&before_time=${t0 + 2000}&before_trace_id=${order[1]}`))).toEqual([order[2]]);
  });

  it('search: an agent_id prefix or part of the asset (case-insensitive), LIKE wildcards taken literally', async () => {
    expect(ids(await list(`?search=${B.agent_id.slice(0, 8)}`))).toEqual([t.b2!.trace_id, t.b1!.trace_id]);
    expect(ids(await list('?search=apl'))).toEqual(order);
    expect(await list('?search=%25')).toMatchObject({ count: 0 });
  });

  it.each([['before_time=1'], [`before_trace_id=${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`]])('422 for one half of the cursor: ?%s', async (query) => {
    const res = await h.call('GET', `/engine/traces?${query}`);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors[0].message).toMatch(/is required with before_/);
  });

  it.each([
    ['search=', 'search'],
    [`search=${'x'.repeat(65)}`, 'search'],
    ['before_time=-1', 'before_time'],
    ['before_trace_id=7', 'before_trace_id'],
    ['limit=5001', 'limit'],
    ['limit=0', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=2.5', 'limit'],
    ['status=pending', 'status'],
    ['status=BOUND', 'status'],
    ['agent_id=not-a-uuid', 'agent_id'],
    ['from=-1', 'from'],
    ['from=yesterday', 'from'],
    ['to=1.5', 'to'],
    ['sort=asc', 'sort'],
  ])('422 for ?%s', async (query, field) => {
    const res = await h.call('GET', `/engine/traces?${query}`);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().code).toBe('validation_failed');
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('from and to reach 9999-12-31T23:59:59.999Z; later ones are a 422, never a 500', async () => {
    expect(await list('?to=253402300799999')).toMatchObject({ count: 5 });
    expect(await list('?from=253402300799999')).toMatchObject({ count: 0 });
    for (const q of ['to=253402300800000', 'from=253402300800000', 'to=8640000000000000']) {
      const res = await h.call('GET', `/engine/traces?${q}`);
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().code).toBe('validation_failed');
    }
  });

  it("an agent-bound client token lists only its agents' traces", async () => {
    const mine = await list('', A.token);
    expect(mine.traces.every((x) => x.agent_id === A.agent_id)).toBe(true);
    expect(ids(mine)).toEqual(order.filter((id) => [t.a1, t.a2, t.a3].some((x) => x!.trace_id === id)));
    expect(ids(await list('?status=PENDING', B.token))).toEqual([t.b1!.trace_id]);
    expect(ids(await list(`?agent_id=${A.agent_id}`, A.token))).toHaveLength(3);

    const res = await h.call('GET', `/engine/traces?agent_id=${B.agent_id}`, undefined, A.token);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('agent_not_permitted');
  });

  it('a token bound to two agents sees both; an auditor sees all', async () => {
    const both = (await h.call('POST', '/engine/admin/tokens', { client_name: 'desk', agent_ids: [A.agent_id, B.agent_id] })).json().token as string;
    expect(ids(await list('', both))).toEqual(order);
    const auditor = (await h.call('POST', '/engine/admin/tokens', { client_name: 'audit', role: 'auditor' })).json().token as string;
    expect(ids(await list('', auditor))).toEqual(order);
  });

  it('401 without a token', async () => {
    expect((await h.call('GET', '/engine/traces', undefined, null)).statusCode).toBe(401);
  });
});

describe('GET /engine/traces: default limit and large listings', () => {
  let h: EngineHarness;
  let agentId: string;

  beforeAll(async () => {
    h = await engineHarness();
    await h.publishRegime('expansion');
    const agent = await h.registerAgent();
    agentId = agent.agent_id;
    const a = (await h.call('POST', '/engine/authorize', h.order(agentId), agent.token)).json();
    // 600 more traces of the same agent, three to each txn_time (so the trace_id tiebreak matters at scale).
    await h.store.sql`
      insert into traces (trace_id, txn_time, agent_id, client_order_id, status, verification_status, action, asset, quantity,
                          notional, notional_currency, reasoning_hash, sealed, policy_result)
      select gen_random_uuid(), t.txn_time - make_interval(secs => (g / 3) * 0.01), t.agent_id, 'bulk-' || g, t.status,
             t.verification_status, t.action, t.asset, t.quantity, t.notional, t.notional_currency, t.reasoning_hash, t.sealed, t.policy_result
      from traces t, generate_series(1, 600) g where t.trace_id = ${a.trace_id}`;
  });
  afterAll(async () => h?.close());

  it('the limit defaults to 500, with has_more', async () => {
    const res = await h.call('GET', '/engine/traces');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ count: 500, has_more: true });
    expect(res.json().traces).toHaveLength(500);
  });

  it('limit=5000 returns all 601, in newest-first order', async () => {
    const body = (await h.call('GET', `/engine/traces?limit=5000&agent_id=${agentId}`)).json() as { count: number; has_more: boolean; traces: Item[] };
    expect(body).toMatchObject({ count: 601, has_more: false });
    expect(body.traces.map((x) => x.trace_id)).toEqual([...body.traces].sort(newestFirst).map((x) => x.trace_id));
    expect(new Set(body.traces.map((x) => x.trace_id)).size).toBe(601);
  });

  it('limit=600 leaves exactly one: has_more true; limit=601: has_more false', async () => {
    expect((await h.call('GET', '/engine/traces?limit=600')).json()).toMatchObject({ count: 600, has_more: true });
    expect((await h.call('GET', '/engine/traces?limit=601')).json()).toMatchObject({ count: 601, has_more: false });
  });

  it('limit=5001 is refused with 422', async () => {
    const res = await h.call('GET', '/engine/traces?limit=5001');
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([expect.objectContaining({ field: 'limit' })]);
  });
});
