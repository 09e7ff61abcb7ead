/**
 * Fail-closed and time rules through authorize: `regime_stale` (no regime published, or one whose data are
 * older than the policy's maximum age, counted from the end of the data day), `agent_valid_time_lag` (the agent acted on a regime too far behind the current one)
 * and `order_rate_exceeded` (the per-agent message throttle of MiFID II RTS 6), all driven by the harness clock.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

function expectDenied(res: LightMyRequestResponse, code: string, detail: string): void {
  expect(res.statusCode, res.body).toBe(403);
  expect(res.json()).toEqual({ code, detail });
}

describe('regime_stale', () => {
  let h: EngineHarness;
  beforeAll(async () => {
    h = await engineHarness({ policy: { regime_max_age_ms: 60_000 } });
  });
  afterAll(async () => h?.close());

  it('regime_stale: with no regime published the engine fails closed, and stores no trace', async () => {
    const { agent_id, token } = await h.registerAgent();
    expectDenied(await h.call('POST', '/engine/authorize', h.order(agent_id), token), 'regime_stale', 'no regime is published; the engine fails closed');
    expect((await h.call('GET', `/engine/traces?agent_id=${agent_id}`)).json().count).toBe(0);
  });

  it('regime_stale: a regime whose data are older than regime_max_age_ms is refused, counted from the end of its data day', async () => {
    await h.publishRegime('expansion');
    const { date } = (await h.call('GET', '/engine/regime')).json();
    const complete = Date.parse(`${date}T00:00:00Z`) + 86_400_000;
    const { agent_id, token } = await h.registerAgent();

    h.clock.now = complete + 60_000;
    const atLimit = await h.call('POST', '/engine/authorize', h.order(agent_id), token);
    expect(atLimit.statusCode, atLimit.body).toBe(200);

    h.clock.now = complete + 60_001;
    expectDenied(
      await h.call('POST', '/engine/authorize', h.order(agent_id), token),
      'regime_stale',
      `the regime's data (${date}, complete at ${new Date(complete).toISOString()}) are 60001 ms old, beyond the maximum age 60000 ms`,
    );
  });

  it('regime_stale: broadcasting old data again does not make them fresh; a broadcast of fresh data does', async () => {
    const { agent_id, token } = await h.registerAgent();
    h.clock.now = Date.now();
    // What a nightly run on data that stopped a year ago does: the broadcast is new, its data are not.
    const old = await h.call('POST', '/engine/admin/regime', { regime: 'expansion', risk_score: 0.1, reason: 'old data', date: '2025-11-26' });
    expect(old.statusCode, old.body).toBe(201);
    const refused = await h.call('POST', '/engine/authorize', h.order(agent_id), token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('regime_stale');
    expect(refused.json().detail).toMatch(/^the regime's data \(2025-11-26, complete at 2025-11-27T00:00:00.000Z\) are \d+ ms old/);

    await h.publishRegime('expansion');
    const fresh = await h.call('POST', '/engine/authorize', h.order(agent_id), token);
    expect(fresh.statusCode, fresh.body).toBe(200);
  });

  it('GET /engine/regime says how old the data are and whether they are stale', async () => {
    h.clock.now = Date.now();
    await h.call('POST', '/engine/admin/regime', { regime: 'tightening', risk_score: 0.6, reason: 'old data', date: '2025-11-26' });
    const body = (await h.call('GET', '/engine/regime')).json();
    expect(body.freshness).toMatchObject({ date: '2025-11-26', data_complete_at: '2025-11-27T00:00:00.000Z', max_age_ms: 60_000, stale: true });
    expect(body.freshness.age_ms).toBe(h.clock.now - Date.parse('2025-11-27T00:00:00Z'));
  });
});

describe('agent_valid_time_lag', () => {
  let h: EngineHarness;
  let published: number;
  beforeAll(async () => {
    h = await engineHarness();
    await h.publishRegime('expansion');
    published = Date.parse((await h.call('GET', '/engine/regime')).json().published_at);
  });
  afterAll(async () => h?.close());

  it('agent_valid_time_lag: an agent_valid_time more than 300000 ms behind the regime is refused', async () => {
    const { agent_id, token } = await h.registerAgent();
    const res = await h.call('POST', '/engine/authorize', h.order(agent_id, { agent_valid_time: published - 300_001 }), token);
    expectDenied(res, 'agent_valid_time_lag', 'agent_valid_time is 300001 ms behind the current regime (maximum 300000 ms)');
  });

  it('agent_valid_time_lag: exactly the maximum lag passes, and the trace seals it as valid_time', async () => {
    const { agent_id, token } = await h.registerAgent();
    const validTime = published - 300_000;
    const res = await h.call('POST', '/engine/authorize', h.order(agent_id, { agent_valid_time: validTime }), token);
    expect(res.statusCode, res.body).toBe(200);
    const trace = (await h.call('GET', `/engine/trace/${res.json().trace_id}`)).json();
    expect(trace.bitemporal.valid_time).toBe(new Date(validTime).toISOString());
  });

  it('agent_valid_time_lag: an agent_valid_time of 0 (the epoch) is refused', async () => {
    const { agent_id, token } = await h.registerAgent();
    const res = await h.call('POST', '/engine/authorize', h.order(agent_id, { agent_valid_time: 0 }), token);
    expectDenied(res, 'agent_valid_time_lag', `agent_valid_time is ${published} ms behind the current regime (maximum 300000 ms)`);
  });
});

describe('order_rate_exceeded', () => {
  let h: EngineHarness;
  beforeAll(async () => {
    h = await engineHarness({ policy: { max_orders_per_second: 3 } });
    await h.publishRegime('expansion');
  });
  afterAll(async () => h?.close());

  /** Puts the clock 10 ms into a fresh wall-clock second, so that every order below falls in the same second. */
  const startOfSecond = (): void => {
    h.clock.now = (Math.floor(h.clock.now / 1000) + 1) * 1000 + 10;
  };

  it('order_rate_exceeded: the 4th order within one second is refused with the count and the limit', async () => {
    const { agent_id, token } = await h.registerAgent();
    startOfSecond();
    for (let i = 0; i < 3; i++) {
      const res = await h.call('POST', '/engine/authorize', h.order(agent_id), token);
      expect(res.statusCode, res.body).toBe(200);
    }
    h.clock.now += 900;
    expectDenied(
      await h.call('POST', '/engine/authorize', h.order(agent_id), token),
      'order_rate_exceeded',
      '4 orders in the current second exceed the limit of 3 per second',
    );
    expect((await h.call('GET', `/engine/traces?agent_id=${agent_id}`)).json().count).toBe(3);
  });

  it('order_rate_exceeded: the next second starts a new count', async () => {
    const { agent_id, token } = await h.registerAgent();
    startOfSecond();
    for (let i = 0; i < 3; i++) expect((await h.call('POST', '/engine/authorize', h.order(agent_id), token)).statusCode).toBe(200);
    expect((await h.call('POST', '/engine/authorize', h.order(agent_id), token)).statusCode).toBe(403);
    h.clock.now += 1000;
    const res = await h.call('POST', '/engine/authorize', h.order(agent_id), token);
    expect(res.statusCode, res.body).toBe(200);
  });

  it('order_rate_exceeded: the throttle is per agent', async () => {
    const a = await h.registerAgent();
    const b = await h.registerAgent();
    startOfSecond();
    for (let i = 0; i < 3; i++) expect((await h.call('POST', '/engine/authorize', h.order(a.agent_id), a.token)).statusCode).toBe(200);
    expect((await h.call('POST', '/engine/authorize', h.order(a.agent_id), a.token)).json().code).toBe('order_rate_exceeded');
    const other = await h.call('POST', '/engine/authorize', h.order(b.agent_id), b.token);
    expect(other.statusCode, other.body).toBe(200);
  });

  it('order_rate_exceeded: orders refused by another rule do not use up the allowance', async () => {
    const { agent_id, token } = await h.registerAgent();
    startOfSecond();
    for (let i = 0; i < 5; i++) {
      const res = await h.call('POST', '/engine/authorize', h.order(agent_id, { notional_currency: 'SEK' }), token);
      expect(res.json().code).toBe('currency_not_allowed');
    }
    for (let i = 0; i < 3; i++) expect((await h.call('POST', '/engine/authorize', h.order(agent_id), token)).statusCode).toBe(200);
  });
});
