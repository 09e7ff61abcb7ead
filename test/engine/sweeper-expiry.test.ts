/**
 * The sweeper (`sweep()` from src/engine/sweeper.ts): PENDING traces older than the expiry age become
 * EXPIRED; younger and bound ones are left alone; an unbound SHADOW_HALTED one gets verification Expired
 * but keeps its listing status; concurrent sweeps (N instances) do no harm, nor does a sweep racing a bind.
 * Each test gets its own store, since a sweep touches every trace in it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sweep } from '../../src/engine/sweeper.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
let agent: { agent_id: string; token: string };

beforeEach(async () => {
  h = await engineHarness({ max: 20 });
  await h.publishRegime('expansion');
  agent = await h.registerAgent();
});
afterEach(async () => h?.close());

async function authorize(overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await h.call('POST', '/engine/authorize', h.order(agent.agent_id, overrides), agent.token);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().trace_id as string;
}

const bind = (traceId: string, extra: Record<string, unknown> = {}) =>
  h.call(
    'POST',
    '/engine/bind-execution',
    { trace_id: traceId, exchange_tx_id: `TX-${traceId.slice(0, 8)}`, execution_status: 'Filled', ...extra },
    agent.token,
  );

async function state(traceId: string): Promise<{ status: string; verification_status: string; expired_at: Date | null; final_proof: string | null }> {
  const [row] = await h.store.sql`select status, verification_status, expired_at, final_proof from traces where trace_id = ${traceId}`;
  return row as never;
}

const sweepNow = () => sweep(h.store.sql, h.clock.now, h.config.traceExpiryMs);

describe('sweep', () => {
  it('turns a PENDING trace older than TRACE_EXPIRY_MS (default 24 h) into EXPIRED, and leaves a younger one', async () => {
    expect(h.config.traceExpiryMs).toBe(86_400_000);
    const t0 = h.clock.now;
    const old = await authorize();
    h.clock.now = t0 + 3_600_000;
    const young = await authorize();

    h.clock.now = t0 + h.config.traceExpiryMs - 1;
    expect((await sweepNow()).expired).toBe(0);
    expect(await state(old)).toMatchObject({ status: 'PENDING', verification_status: 'Pending', expired_at: null });

    h.clock.now = t0 + h.config.traceExpiryMs + 1;
    const result = await sweepNow();
    expect(result.expired).toBe(1);
    expect(await state(old)).toMatchObject({ status: 'EXPIRED', verification_status: 'Expired' });
    expect((await state(old)).expired_at).toBeInstanceOf(Date);
    expect(await state(young)).toMatchObject({ status: 'PENDING', verification_status: 'Pending', expired_at: null });

    // The API shows the same.
    const doc = (await h.call('GET', `/engine/trace/${old}`, undefined, agent.token)).json();
    expect(doc.integrity.status).toBe('EXPIRED');
    expect(doc.integrity.verification_status).toBe('Expired');
    const listed = (await h.call('GET', '/engine/traces?status=EXPIRED', undefined, agent.token)).json();
    expect(listed.traces.map((t: { trace_id: string }) => t.trace_id)).toEqual([old]);

    // Once the younger one ages too, the next sweep takes it.
    h.clock.now = t0 + 3_600_000 + h.config.traceExpiryMs + 1;
    expect((await sweepNow()).expired).toBe(1);
    expect((await state(young)).status).toBe('EXPIRED');
  });

  it('honours a configured expiry age', async () => {
    await h.close();
    h = await engineHarness({ config: { traceExpiryMs: 60_000 } });
    await h.publishRegime('expansion');
    agent = await h.registerAgent();
    const t0 = h.clock.now;
    const id = await authorize();
    h.clock.now = t0 + 59_000;
    expect((await sweepNow()).expired).toBe(0);
    h.clock.now = t0 + 61_000;
    expect((await sweepNow()).expired).toBe(1);
    expect((await state(id)).status).toBe('EXPIRED');
  });

  it('leaves bound traces alone, whatever their verification', async () => {
    const matched = await authorize();
    const divergent = await authorize();
    const mismatch = await authorize();
    expect((await bind(matched)).json().verification_status).toBe('Matched');
    expect((await bind(divergent, { asset: 'MSFT' })).json().verification_status).toBe('Divergent');
    expect((await bind(mismatch, { executed_side: 'Short' })).json().verification_status).toBe('Mismatch');
    h.clock.now += h.config.traceExpiryMs * 2;
    expect((await sweepNow()).expired).toBe(0);
    expect(await state(matched)).toMatchObject({ status: 'MATCHED', verification_status: 'Matched', expired_at: null });
    expect(await state(divergent)).toMatchObject({ status: 'DIVERGENT', verification_status: 'Divergent', expired_at: null });
    expect(await state(mismatch)).toMatchObject({ status: 'MISMATCH', verification_status: 'Mismatch', expired_at: null });
  });

  it('an unbound SHADOW_HALTED trace gets verification Expired but keeps its listing status; a bound one is untouched', async () => {
    await h.call('POST', '/engine/admin/shadow-mode', { enabled: true, reason: 'dry run' });
    const tooBig = { quantity: 2000, limit_price: 190, notional: 380_000 };
    const unbound = await authorize(tooBig);
    const bound = await authorize(tooBig);
    await h.call('POST', '/engine/admin/shadow-mode', { enabled: false });
    expect((await bind(bound)).statusCode).toBe(200);

    h.clock.now += h.config.traceExpiryMs + 1000;
    expect((await sweepNow()).expired).toBe(1);
    expect(await state(unbound)).toMatchObject({ status: 'SHADOW_HALTED', verification_status: 'Expired' });
    expect(await state(bound)).toMatchObject({ status: 'SHADOW_HALTED', verification_status: 'Matched', expired_at: null });

    const violations = (await h.call('GET', '/engine/shadow-violations', undefined, agent.token)).json();
    expect(violations.traces.find((t: { trace_id: string }) => t.trace_id === unbound)).toMatchObject({
      status: 'SHADOW_HALTED',
      verification_status: 'Expired',
    });
    // Its listing status stays SHADOW_HALTED, and its failed verification puts it in the orphans listing.
    const orphans = (await h.call('GET', '/engine/orphans', undefined, agent.token)).json();
    expect(orphans.traces.map((t: { trace_id: string }) => t.trace_id)).toEqual([unbound]);

    // Bound after expiry, it is Divergent and still SHADOW_HALTED.
    const late = await bind(unbound);
    expect(late.json()).toMatchObject({ verification_status: 'Divergent', divergence_reason: 'bound after expiry' });
    expect((await state(unbound)).status).toBe('SHADOW_HALTED');
  });

  it('sweeping again changes nothing: an EXPIRED trace is not re-expired', async () => {
    const id = await authorize();
    h.clock.now += h.config.traceExpiryMs + 1000;
    expect((await sweepNow()).expired).toBe(1);
    const first = await state(id);
    h.clock.now += 60_000;
    expect((await sweepNow()).expired).toBe(0);
    expect(await state(id)).toEqual(first);
  });

  it('two sweeps at once are harmless: each trace expires exactly once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 15; i++) ids.push(await authorize());
    h.clock.now += h.config.traceExpiryMs + 1000;
    const results = await Promise.all([sweepNow(), sweepNow(), sweepNow()]);
    expect(results.reduce((n, r) => n + r.expired, 0)).toBe(15);
    for (const id of ids) expect((await state(id)).status).toBe('EXPIRED');
    const [n] = await h.store.sql`select count(*)::int as n from traces`;
    expect(n!.n).toBe(15);
  });

  it('a sweep racing binds never leaves a bound trace EXPIRED', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 15; i++) ids.push(await authorize());
    h.clock.now += h.config.traceExpiryMs + 1000;
    const [, ...binds] = await Promise.all([sweepNow(), ...ids.map((id) => bind(id, { asset: 'AAPL', executed_quantity: 100 }))]);
    expect(binds.map((b) => b.statusCode)).toEqual(Array(15).fill(200));
    for (const [i, id] of ids.entries()) {
      const s = await state(id);
      const answer = binds[i]!.json();
      expect(s.final_proof).toBe(answer.final_proof);
      // Either the bind came first (Matched, never expired) or the sweep did (Divergent, bound after expiry).
      if (answer.verification_status === 'Matched') {
        expect(s).toMatchObject({ status: 'MATCHED', verification_status: 'Matched', expired_at: null });
      } else {
        expect(answer).toMatchObject({ verification_status: 'Divergent', divergence_reason: 'bound after expiry' });
        expect(s).toMatchObject({ status: 'DIVERGENT', verification_status: 'Divergent' });
      }
    }
  });

  it('creates the monthly trace partitions ahead, idempotently', async () => {
    h.clock.now = Date.UTC(2031, 4, 15);
    const first = await sweepNow();
    expect(first.partitions_created).toBe(3);
    const [row] = await h.store.sql`select count(*)::int as n from pg_class where relname in ('traces_y2031m05', 'traces_y2031m06', 'traces_y2031m07')`;
    expect(row!.n).toBe(3);
    expect((await sweepNow()).partitions_created).toBe(0);
  });

  it('reports, and does not swallow, a month partition blocked by rows already in the default partition', async () => {
    // A trace for 2033-02 lands in the default partition (no month partition exists for it yet).
    await h.store.sql`
      insert into traces (trace_id, txn_time, agent_id, client_order_id, status, verification_status, action, asset, quantity,
                          notional, notional_currency, reasoning_hash, sealed, policy_result)
      values (gen_random_uuid(), '2033-02-15T12:00:00Z', gen_random_uuid(), 'x', 'MATCHED', 'Matched', 'Long', 'AAPL', 1, 1, 'USD',
              ${'0'.repeat(64)}, '{}', 'PASS')`;
    h.clock.now = Date.UTC(2033, 0, 20);
    const result = await sweepNow();
    expect(result.partition_error).toMatch(/default/i);
    expect(result.partitions_created).toBe(0);
    const [row] = await h.store.sql`select count(*)::int as n from traces where txn_time = '2033-02-15T12:00:00Z'`;
    expect(row!.n).toBe(1);
  });

  it('prunes order-rate counters older than a minute', async () => {
    await authorize();
    const [before] = await h.store.sql`select count(*)::int as n from agent_order_rate`;
    expect(before!.n).toBe(1);
    expect((await sweepNow()).rate_rows_pruned).toBe(0);
    h.clock.now += 61_000;
    expect((await sweepNow()).rate_rows_pruned).toBe(1);
    const [after] = await h.store.sql`select count(*)::int as n from agent_order_rate`;
    expect(after!.n).toBe(0);
  });
});
