/**
 * `POST /engine/bind-execution` against a real store: the verification (Matched, Divergent, Mismatch),
 * `final_proof`, execution time, every status code of the interface table (200, 404, 409, 422) plus the
 * 401/403 of authentication and agent scope, binding after expiry and binding a SHADOW_HALTED trace.
 * The 50-way concurrent bind is in bind-concurrency.test.ts.
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweep } from '../../src/engine/sweeper.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

interface Authorized {
  trace_id: string;
  reasoning_hash: string;
  shadow_blocked: boolean;
}

/** SHA-256 of the ASCII text `reasoning_hash || exchange_tx_id`, computed here rather than by the engine's helper. */
const expectedProof = (reasoningHash: string, exchangeTxId: string): string =>
  createHash('sha256')
    .update(Buffer.from(`${reasoningHash}||${exchangeTxId}`, 'ascii'))
    .digest('hex');

async function authorized(h: EngineHarness, token: string, agentId: string, overrides: Record<string, unknown> = {}): Promise<Authorized> {
  const res = await h.call('POST', '/engine/authorize', h.order(agentId, overrides), token);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Authorized;
}

const bind = (h: EngineHarness, body: unknown, token?: string | null) => h.call('POST', '/engine/bind-execution', body, token);

const storedRow = async (h: EngineHarness, traceId: string) => {
  const [row] = await h.store
    .sql`select status, verification_status, exchange_tx_id, final_proof, execution_time, divergence_reason from traces where trace_id = ${traceId}`;
  return row as {
    status: string;
    verification_status: string;
    exchange_tx_id: string | null;
    final_proof: string | null;
    execution_time: Date | null;
    divergence_reason: string | null;
  };
};

describe('bind-execution', () => {
  let h: EngineHarness;
  let agent: { agent_id: string; token: string };

  beforeAll(async () => {
    // No message throttle: this file authorizes many orders at one clock second.
    h = await engineHarness({ policy: { max_orders_per_second: null } });
    await h.publishRegime('expansion');
    agent = await h.registerAgent();
  });
  afterAll(async () => h?.close());

  describe('verification', () => {
    it('answers 200 Matched with final_proof = SHA-256(reasoning_hash || "||" || exchange_tx_id)', async () => {
      const a = await authorized(h, agent.token, agent.agent_id);
      const res = await bind(
        h,
        {
          trace_id: a.trace_id,
          exchange_tx_id: 'NASDAQ-000123',
          execution_status: 'Filled',
          asset: 'AAPL',
          executed_quantity: 100,
          executed_side: 'Long',
          execution_price: 189.95,
        },
        agent.token,
      );
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(Object.keys(body).sort()).toEqual(['divergence_reason', 'execution_status', 'execution_time', 'final_proof', 'trace_id', 'verification_status']);
      expect(body).toMatchObject({ trace_id: a.trace_id, verification_status: 'Matched', execution_status: 'Filled', divergence_reason: null });
      expect(body.final_proof).toBe(expectedProof(a.reasoning_hash, 'NASDAQ-000123'));
      expect(body.final_proof).toMatch(/^[0-9a-f]{64}$/);

      const row = await storedRow(h, a.trace_id);
      expect(row).toMatchObject({ status: 'MATCHED', verification_status: 'Matched', exchange_tx_id: 'NASDAQ-000123', final_proof: body.final_proof });
    });

    it('a Matched bind with no asset, quantity or side reported is Matched (nothing to compare)', async () => {
      const a = await authorized(h, agent.token, agent.agent_id);
      const res = await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'X-min', execution_status: 'Filled' }, agent.token);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ verification_status: 'Matched', divergence_reason: null });
    });

    it('is Divergent when the asset differs, the reason naming the field and both values', async () => {
      const a = await authorized(h, agent.token, agent.agent_id);
      const res = await bind(
        h,
        { trace_id: a.trace_id, exchange_tx_id: 'X-asset', execution_status: 'Filled', asset: 'MSFT', executed_quantity: 100 },
        agent.token,
      );
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body.verification_status).toBe('Divergent');
      expect(body.divergence_reason).toMatch(/asset/);
      expect(body.divergence_reason).toContain('AAPL');
      expect(body.divergence_reason).toContain('MSFT');
      expect(body.final_proof).toBe(expectedProof(a.reasoning_hash, 'X-asset'));
      expect(await storedRow(h, a.trace_id)).toMatchObject({
        status: 'DIVERGENT',
        verification_status: 'Divergent',
        divergence_reason: body.divergence_reason,
      });
    });

    // Authorized quantity 100, default tolerance 1e-4 relative.
    it.each([
      { status: 'Filled', qty: 100, expected: 'Matched', why: 'exact fill' },
      { status: 'Filled', qty: 100.005, expected: 'Matched', why: 'over by 5e-5, inside the tolerance' },
      { status: 'Filled', qty: 99.995, expected: 'Matched', why: 'under by 5e-5, inside the tolerance' },
      { status: 'Filled', qty: 100.02, expected: 'Divergent', why: 'over by 2e-4, outside the tolerance' },
      { status: 'Filled', qty: 99.98, expected: 'Divergent', why: 'under by 2e-4, outside the tolerance' },
      { status: 'Filled', qty: 50, expected: 'Divergent', why: 'a Filled execution below the quantity' },
      { status: 'Partial', qty: 50, expected: 'Matched', why: 'a Partial fill below the quantity' },
      { status: 'Partial', qty: 0.5, expected: 'Matched', why: 'a small Partial fill' },
      { status: 'Filled', qty: 150, expected: 'Divergent', why: 'an over-fill' },
      { status: 'Partial', qty: 101, expected: 'Divergent', why: 'a Partial over-fill' },
    ])('executed_quantity $qty $status → $expected ($why)', async ({ status, qty, expected }) => {
      const a = await authorized(h, agent.token, agent.agent_id);
      const res = await bind(
        h,
        { trace_id: a.trace_id, exchange_tx_id: `X-q-${randomUUID()}`, execution_status: status, asset: 'AAPL', executed_quantity: qty, executed_side: 'Long' },
        agent.token,
      );
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body.verification_status).toBe(expected);
      if (expected === 'Divergent') {
        expect(body.divergence_reason).toMatch(/executed_quantity/);
        expect(body.divergence_reason).toContain('100');
        expect(body.divergence_reason).toContain(String(qty));
      } else {
        expect(body.divergence_reason).toBeNull();
      }
    });

    it.each(['Rejected', 'Cancelled'])('a %s execution moved nothing: its quantity is not compared', async (status) => {
      const a = await authorized(h, agent.token, agent.agent_id);
      const res = await bind(
        h,
        { trace_id: a.trace_id, exchange_tx_id: `X-${status}`, execution_status: status, asset: 'AAPL', executed_quantity: 0 },
        agent.token,
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ verification_status: 'Matched', execution_status: status });
    });

    it('is Mismatch when the executed side is opposite to the intent (Long authorized, Short executed)', async () => {
      const a = await authorized(h, agent.token, agent.agent_id);
      const res = await bind(
        h,
        { trace_id: a.trace_id, exchange_tx_id: 'X-side', execution_status: 'Filled', asset: 'AAPL', executed_quantity: 100, executed_side: 'Short' },
        agent.token,
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().verification_status).toBe('Mismatch');
      expect(res.json().final_proof).toBe(expectedProof(a.reasoning_hash, 'X-side'));
      expect(await storedRow(h, a.trace_id)).toMatchObject({ status: 'MISMATCH', verification_status: 'Mismatch' });
    });

    it('is Mismatch for a Short intent executed Long', async () => {
      const a = await authorized(h, agent.token, agent.agent_id, { action: 'Short' });
      const res = await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'X-side-2', execution_status: 'Filled', executed_side: 'Long' }, agent.token);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().verification_status).toBe('Mismatch');
    });

    it('the same side as the intent is not a Mismatch', async () => {
      const a = await authorized(h, agent.token, agent.agent_id, { action: 'Short' });
      const res = await bind(
        h,
        { trace_id: a.trace_id, exchange_tx_id: 'X-side-3', execution_status: 'Filled', executed_side: 'Short', executed_quantity: 100 },
        agent.token,
      );
      expect(res.json().verification_status).toBe('Matched');
    });
  });

  describe('execution_time', () => {
    it('defaults to the engine clock at bind time', async () => {
      const a = await authorized(h, agent.token, agent.agent_id);
      h.clock.now += 1234;
      const at = h.clock.now;
      const res = await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'X-time-default', execution_status: 'Filled' }, agent.token);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().execution_time).toBe(new Date(at).toISOString());
      expect((await storedRow(h, a.trace_id)).execution_time?.getTime()).toBe(at);
    });

    it('honours execution_time_ms', async () => {
      const a = await authorized(h, agent.token, agent.agent_id);
      const fill = h.clock.now + 420;
      const res = await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'X-time-given', execution_status: 'Filled', execution_time_ms: fill }, agent.token);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ execution_time: new Date(fill).toISOString(), verification_status: 'Matched' });
      const doc = (await h.call('GET', `/engine/trace/${a.trace_id}`, undefined, agent.token)).json();
      expect(doc.integrity.execution_time).toBe(new Date(fill).toISOString());
    });

    it('a fill timed before its authorization binds Divergent, naming both times', async () => {
      const a = await authorized(h, agent.token, agent.agent_id);
      const sealedAt = new Date(h.clock.now).toISOString();
      const res = await bind(
        h,
        { trace_id: a.trace_id, exchange_tx_id: 'X-time-early', execution_status: 'Filled', execution_time_ms: 1_700_000_000_123 },
        agent.token,
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        execution_time: '2023-11-14T22:13:20.123Z',
        verification_status: 'Divergent',
        divergence_reason: `execution_time: 2023-11-14T22:13:20.123Z is before the authorization at ${sealedAt}`,
      });
      expect((await storedRow(h, a.trace_id)).status).toBe('DIVERGENT');
    });

    it('accepts execution_time_ms up to 9999-12-31T23:59:59.999Z and refuses later ones with 422, never 500', async () => {
      const a = await authorized(h, agent.token, agent.agent_id);
      for (const late of [253_402_300_800_000, 8.64e15]) {
        const res = await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'X-time-late', execution_status: 'Filled', execution_time_ms: late }, agent.token);
        expect(res.statusCode, res.body).toBe(422);
        expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(['execution_time_ms']);
      }
      const res = await bind(
        h,
        { trace_id: a.trace_id, exchange_tx_id: 'X-time-max', execution_status: 'Filled', execution_time_ms: 253_402_300_799_999 },
        agent.token,
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().execution_time).toBe('9999-12-31T23:59:59.999Z');
      // Stored as given, and judged: a fill from the far future is not a fill the engine can match.
      expect(res.json().verification_status).toBe('Divergent');
      expect(res.json().divergence_reason).toMatch(/^execution_time: 9999-12-31T23:59:59\.999Z is later than the engine's clock/);
    });

    it('honours execution_time_ms = 0 (not treated as absent)', async () => {
      const a = await authorized(h, agent.token, agent.agent_id);
      const res = await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'X-time-zero', execution_status: 'Filled', execution_time_ms: 0 }, agent.token);
      expect(res.json().execution_time).toBe('1970-01-01T00:00:00.000Z');
      expect(res.json().verification_status).toBe('Divergent');
      expect(res.json().divergence_reason).toMatch(/^execution_time: 1970-01-01T00:00:00\.000Z is before the authorization at /);
    });
  });

  describe('status codes', () => {
    it('404 for an unknown trace', async () => {
      const res = await bind(h, { trace_id: randomUUID(), exchange_tx_id: 'X-404', execution_status: 'Filled' }, agent.token);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not_found' });
      expect(typeof res.json().detail).toBe('string');
    });

    it('409 trace_already_bound on a second bind, and the first binding stands', async () => {
      const a = await authorized(h, agent.token, agent.agent_id);
      const first = await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'X-first', execution_status: 'Filled' }, agent.token);
      expect(first.statusCode).toBe(200);
      const second = await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'X-second', execution_status: 'Filled', asset: 'MSFT' }, agent.token);
      expect(second.statusCode).toBe(409);
      expect(second.json().code).toBe('trace_already_bound');
      // Even the very same request again is a 409: binding is once only.
      const again = await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'X-first', execution_status: 'Filled' }, agent.token);
      expect(again.statusCode).toBe(409);
      expect(await storedRow(h, a.trace_id)).toMatchObject({
        exchange_tx_id: 'X-first',
        verification_status: 'Matched',
        final_proof: first.json().final_proof,
      });
    });

    it('422 listing every missing required field', async () => {
      const res = await bind(h, {}, agent.token);
      expect(res.statusCode).toBe(422);
      expect(res.json().code).toBe('validation_failed');
      const fields = (res.json().errors as Array<{ field: string }>).map((e) => e.field).sort();
      expect(fields).toEqual(['exchange_tx_id', 'execution_status', 'trace_id']);
    });

    it.each([
      ['trace_id not a uuid', { trace_id: 'not-a-uuid' }, 'trace_id'],
      ['trace_id a number', { trace_id: 42 }, 'trace_id'],
      ['exchange_tx_id with a newline', { exchange_tx_id: 'X\n1' }, 'exchange_tx_id'],
      ['exchange_tx_id with a NUL', { exchange_tx_id: 'X\u00001' }, 'exchange_tx_id'],
      ['exchange_tx_id with a bell', { exchange_tx_id: '\u0007X' }, 'exchange_tx_id'],
      ['exchange_tx_id with DEL', { exchange_tx_id: 'X\u007f' }, 'exchange_tx_id'],
      ['exchange_tx_id with a tab', { exchange_tx_id: 'X\t1' }, 'exchange_tx_id'],
      ['exchange_tx_id non-ASCII', { exchange_tx_id: 'X-é' }, 'exchange_tx_id'],
      ['exchange_tx_id empty', { exchange_tx_id: '' }, 'exchange_tx_id'],
      ['exchange_tx_id of 129 characters', { exchange_tx_id: 'X'.repeat(129) }, 'exchange_tx_id'],
      ['an unknown execution_status', { execution_status: 'Done' }, 'execution_status'],
      ['a negative executed_quantity', { executed_quantity: -1 }, 'executed_quantity'],
      ['executed_quantity as a string', { executed_quantity: '100' }, 'executed_quantity'],
      ['an unknown executed_side', { executed_side: 'Buy' }, 'executed_side'],
      ['a negative execution_time_ms', { execution_time_ms: -5 }, 'execution_time_ms'],
      ['a fractional execution_time_ms', { execution_time_ms: 1.5 }, 'execution_time_ms'],
      ['an unknown field', { venue: 'XNAS' }, 'venue'],
    ])('422 for %s, naming the field', async (_name, patch, field) => {
      const a = await authorized(h, agent.token, agent.agent_id);
      const res = await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'X-422', execution_status: 'Filled', ...patch }, agent.token);
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().code).toBe('validation_failed');
      expect((res.json().errors as Array<{ field: string }>).map((e) => e.field)).toContain(field);
      // Nothing was bound.
      expect((await storedRow(h, a.trace_id)).final_proof).toBeNull();
    });

    it('accepts an exchange_tx_id of 128 printable ASCII characters', async () => {
      const a = await authorized(h, agent.token, agent.agent_id);
      const id = '!~'.repeat(64);
      const res = await bind(h, { trace_id: a.trace_id, exchange_tx_id: id, execution_status: 'Filled' }, agent.token);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().final_proof).toBe(expectedProof(a.reasoning_hash, id));
    });

    it('422 invalid_json for a malformed body', async () => {
      const res = await h.app.inject({
        method: 'POST',
        url: '/engine/bind-execution',
        payload: '{"trace_id": ',
        headers: { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json' },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().code).toBe('invalid_json');
    });

    it('401 without a token', async () => {
      const a = await authorized(h, agent.token, agent.agent_id);
      const res = await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'X-401', execution_status: 'Filled' }, null);
      expect(res.statusCode).toBe(401);
      expect((await storedRow(h, a.trace_id)).final_proof).toBeNull();
    });

    it('403 agent_not_permitted for a client token bound to another agent; the trace stays unbound', async () => {
      const a = await authorized(h, agent.token, agent.agent_id);
      const other = await h.registerAgent();
      const res = await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'X-403', execution_status: 'Filled' }, other.token);
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('agent_not_permitted');
      expect((await storedRow(h, a.trace_id)).final_proof).toBeNull();
      // The rightful agent can still bind it.
      expect((await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'X-403', execution_status: 'Filled' }, agent.token)).statusCode).toBe(200);
    });

    it("403 (not 409 with the exchange_tx_id) for another agent's token on an already bound trace", async () => {
      const a = await authorized(h, agent.token, agent.agent_id);
      expect((await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'SECRET-TX-77', execution_status: 'Filled' }, agent.token)).statusCode).toBe(200);
      const other = await h.registerAgent();
      const res = await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'X-probe', execution_status: 'Filled' }, other.token);
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('agent_not_permitted');
      expect(res.body).not.toContain('SECRET-TX-77');
    });

    it("an owner token and an unscoped client token may bind any agent's trace", async () => {
      const a = await authorized(h, agent.token, agent.agent_id);
      expect((await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'X-owner', execution_status: 'Filled' })).statusCode).toBe(200);
      const b = await authorized(h, agent.token, agent.agent_id);
      const unscoped = (await h.call('POST', '/engine/admin/tokens', { client_name: 'desk' })).json().token as string;
      expect((await bind(h, { trace_id: b.trace_id, exchange_tx_id: 'X-desk', execution_status: 'Filled' }, unscoped)).statusCode).toBe(200);
    });
  });

  describe('shadow-halted traces', () => {
    it('binds a SHADOW_HALTED trace: the listing status stays SHADOW_HALTED, integrity records the result', async () => {
      expect((await h.call('POST', '/engine/admin/shadow-mode', { enabled: true, reason: 'policy rollout' })).statusCode).toBe(200);
      let a: Authorized;
      try {
        // Over the agent's 200 000 cap: a violation, which shadow mode lets through.
        a = await authorized(h, agent.token, agent.agent_id, { quantity: 2000, limit_price: 190, notional: 380_000 });
      } finally {
        await h.call('POST', '/engine/admin/shadow-mode', { enabled: false, reason: null });
      }
      expect(a.shadow_blocked).toBe(true);

      const res = await bind(
        h,
        { trace_id: a.trace_id, exchange_tx_id: 'X-shadow', execution_status: 'Filled', asset: 'AAPL', executed_quantity: 2000, executed_side: 'Long' },
        agent.token,
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ verification_status: 'Matched', final_proof: expectedProof(a.reasoning_hash, 'X-shadow') });

      const doc = (await h.call('GET', `/engine/trace/${a.trace_id}`, undefined, agent.token)).json();
      expect(doc.integrity.status).toBe('SHADOW_HALTED');
      expect(doc.policy.result).toBe('FAIL:notional_cap_exceeded');
      expect(doc.integrity).toMatchObject({
        verification_status: 'Matched',
        execution_status: 'Filled',
        final_proof: expectedProof(a.reasoning_hash, 'X-shadow'),
      });

      const listed = (await h.call('GET', '/engine/shadow-violations', undefined, agent.token)).json();
      const item = listed.traces.find((t: { trace_id: string }) => t.trace_id === a.trace_id);
      expect(item).toMatchObject({ status: 'SHADOW_HALTED', verification_status: 'Matched' });
    });

    it('a SHADOW_HALTED trace bound Divergent keeps SHADOW_HALTED and records Divergent', async () => {
      await h.call('POST', '/engine/admin/shadow-mode', { enabled: true, reason: 'rollout' });
      let a: Authorized;
      try {
        a = await authorized(h, agent.token, agent.agent_id, { quantity: 2000, limit_price: 190, notional: 380_000 });
      } finally {
        await h.call('POST', '/engine/admin/shadow-mode', { enabled: false });
      }
      const res = await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'X-shadow-d', execution_status: 'Filled', asset: 'TSLA' }, agent.token);
      expect(res.json().verification_status).toBe('Divergent');
      expect(await storedRow(h, a.trace_id)).toMatchObject({ status: 'SHADOW_HALTED', verification_status: 'Divergent' });
    });
  });
});

describe('bind-execution with a configured quantity tolerance', () => {
  let h: EngineHarness;
  let agent: { agent_id: string; token: string };

  beforeAll(async () => {
    h = await engineHarness({ config: { bindQuantityTolerance: 0.05 } });
    await h.publishRegime('expansion');
    agent = await h.registerAgent();
  });
  afterAll(async () => h?.close());

  // Authorized quantity 100, tolerance 5 % relative.
  it.each([
    { status: 'Filled', qty: 96, expected: 'Matched' },
    { status: 'Filled', qty: 104, expected: 'Matched' },
    { status: 'Filled', qty: 94, expected: 'Divergent' },
    { status: 'Filled', qty: 106, expected: 'Divergent' },
    { status: 'Partial', qty: 10, expected: 'Matched' },
    { status: 'Partial', qty: 106, expected: 'Divergent' },
  ])('executed_quantity $qty $status → $expected', async ({ status, qty, expected }) => {
    const a = await authorized(h, agent.token, agent.agent_id);
    const res = await bind(h, { trace_id: a.trace_id, exchange_tx_id: `X-tol-${qty}`, execution_status: status, executed_quantity: qty }, agent.token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().verification_status).toBe(expected);
    if (expected === 'Divergent') expect(res.json().divergence_reason).toContain('tolerance 0.05');
  });

  it('0.5 % away, Divergent under the default 1e-4, is Matched here', async () => {
    const a = await authorized(h, agent.token, agent.agent_id);
    const res = await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'X-tol-small', execution_status: 'Filled', executed_quantity: 100.5 }, agent.token);
    expect(res.json().verification_status).toBe('Matched');
  });
});

describe('bind-execution after expiry', () => {
  let h: EngineHarness;
  let agent: { agent_id: string; token: string };

  beforeAll(async () => {
    h = await engineHarness();
    await h.publishRegime('expansion');
    agent = await h.registerAgent();
  });
  afterAll(async () => h?.close());

  it('a trace swept to EXPIRED binds Divergent with reason "bound after expiry"', async () => {
    const a = await authorized(h, agent.token, agent.agent_id);
    h.clock.now += h.config.traceExpiryMs + 1000;
    const swept = await sweep(h.store.sql, h.clock.now, h.config.traceExpiryMs);
    expect(swept.expired).toBe(1);
    expect(await storedRow(h, a.trace_id)).toMatchObject({ status: 'EXPIRED', verification_status: 'Expired' });

    // Even an execution that matches the intent exactly is Divergent once the trace expired.
    const res = await bind(
      h,
      { trace_id: a.trace_id, exchange_tx_id: 'X-late', execution_status: 'Filled', asset: 'AAPL', executed_quantity: 100, executed_side: 'Long' },
      agent.token,
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      verification_status: 'Divergent',
      divergence_reason: 'bound after expiry',
      final_proof: expectedProof(a.reasoning_hash, 'X-late'),
    });
    expect(await storedRow(h, a.trace_id)).toMatchObject({ status: 'DIVERGENT', verification_status: 'Divergent', divergence_reason: 'bound after expiry' });

    // And it binds once only.
    expect((await bind(h, { trace_id: a.trace_id, exchange_tx_id: 'X-late-2', execution_status: 'Filled' }, agent.token)).statusCode).toBe(409);
  });

  it('a trace younger than the expiry age is not expired by the sweep and binds Matched', async () => {
    const a = await authorized(h, agent.token, agent.agent_id);
    h.clock.now += h.config.traceExpiryMs - 60_000;
    await sweep(h.store.sql, h.clock.now, h.config.traceExpiryMs);
    const res = await bind(
      h,
      { trace_id: a.trace_id, exchange_tx_id: 'X-young', execution_status: 'Filled', asset: 'AAPL', executed_quantity: 100 },
      agent.token,
    );
    expect(res.json()).toMatchObject({ verification_status: 'Matched', divergence_reason: null });
  });
});
