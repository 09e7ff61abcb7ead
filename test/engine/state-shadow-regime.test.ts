/**
 * The shared engine state: shadow mode (`/engine/admin/shadow-mode`), the regime broadcast
 * (`GET /engine/regime`, `POST /engine/admin/regime`), and the multi-instance guarantee: a second engine
 * instance on the same store sees a shadow-mode change and a new broadcast within one second.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { FastifyInstance } from 'fastify';
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineContext, type EngineContext } from '../../src/engine/context.js';
import { EngineState } from '../../src/engine/state.js';
import { publishManual } from '../../src/store/regime-broadcasts.js';
import { setShadowMode } from '../../src/engine/store/shadow.js';
import { buildApp } from '../../src/http/app.js';
import { connect } from '../../src/store/driver.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
const jcs = (v: unknown): string => {
  const text = canonicalize(v);
  if (text === undefined) throw new Error('no canonical form');
  return text;
};

const REGIME_FIELDS = [
  'available_at',
  'date',
  'effective_since',
  'freshness',
  'hash',
  'model_version',
  'probabilities',
  'published_at',
  'published_by',
  'reason',
  'regime',
  'regime_id',
  'risk_score',
  'source',
];
/** Over the harness agent's 200 000 cap: a policy violation. */
const TOO_BIG = { quantity: 2000, limit_price: 190, notional: 380_000 };

describe('GET /engine/regime and POST /engine/admin/regime', () => {
  let h: EngineHarness;

  beforeAll(async () => {
    h = await engineHarness();
  });
  afterAll(async () => h?.close());

  it('404 regime_not_published before any broadcast', async () => {
    const res = await h.call('GET', '/engine/regime');
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('regime_not_published');
    expect(typeof res.json().detail).toBe('string');
  });

  it('shows the broadcast in force with every field, and a hash recomputed independently', async () => {
    const probabilities = { expansion: 0.1, recovery: 0.2, tightening: 0.3, risk_off: 0.4 };
    const posted = await h.call('POST', '/engine/admin/regime', {
      regime: 'tightening',
      risk_score: 0.6180339887,
      reason: 'FOMC surprise',
      date: '2024-03-20',
      probabilities,
      model_version: 'hmm-2.1',
    });
    expect(posted.statusCode, posted.body).toBe(201);

    const res = await h.call('GET', '/engine/regime');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(REGIME_FIELDS);
    expect(body).toMatchObject({
      date: '2024-03-20',
      regime: 'tightening',
      regime_id: 2,
      risk_score: 0.6180339887,
      probabilities,
      model_version: 'hmm-2.1',
      source: 'manual',
      reason: 'FOMC surprise',
    });
    expect(body.published_by).toContain('bootstrap');
    expect(body.published_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const expected = sha256(
      jcs({
        date: body.date,
        regime: body.regime,
        regime_id: body.regime_id,
        risk_score: body.risk_score,
        probabilities: body.probabilities,
        model_version: body.model_version,
      }),
    );
    expect(body.hash).toBe(expected);
    expect(posted.json().hash).toBe(expected);
  });

  it("a manual broadcast without probabilities states certainty on the named regime; date defaults to the engine clock's day", async () => {
    const res = await h.call('POST', '/engine/admin/regime', { regime: 'risk_off', risk_score: 0.95, reason: 'kill switch' });
    expect(res.statusCode).toBe(201);
    const body = (await h.call('GET', '/engine/regime')).json();
    expect(body).toMatchObject({
      regime: 'risk_off',
      regime_id: 3,
      model_version: 'manual',
      date: new Date(h.clock.now).toISOString().slice(0, 10),
      probabilities: { expansion: 0, recovery: 0, tightening: 0, risk_off: 1 },
    });
    expect(body.hash).toBe(
      sha256(jcs({ date: body.date, regime: 'risk_off', regime_id: 3, risk_score: 0.95, probabilities: body.probabilities, model_version: 'manual' })),
    );
  });

  it('the newest broadcast is the one in force, and authorize enforces it', async () => {
    const agent = await h.registerAgent();
    await h.publishRegime('risk_off', 0.9);
    const denied = await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe('side_not_allowed');
    const expansion = await h.publishRegime('expansion', 0.1);
    expect((await h.call('GET', '/engine/regime')).json()).toMatchObject({ regime: 'expansion', regime_id: 0, hash: expansion.hash });
    const auth = await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token);
    expect(auth.statusCode, auth.body).toBe(200);
    const doc = (await h.call('GET', `/engine/trace/${auth.json().trace_id}`)).json();
    expect(doc.mta.hash).toBe(expansion.hash);
  });

  it('any valid token reads the regime: client and auditor; none → 401', async () => {
    const agent = await h.registerAgent();
    const auditor = (await h.call('POST', '/engine/admin/tokens', { client_name: 'aud', role: 'auditor' })).json().token;
    expect((await h.call('GET', '/engine/regime', undefined, agent.token)).statusCode).toBe(200);
    expect((await h.call('GET', '/engine/regime', undefined, auditor)).statusCode).toBe(200);
    expect((await h.call('GET', '/engine/regime', undefined, null)).statusCode).toBe(401);
    expect((await h.call('POST', '/engine/admin/regime', { regime: 'risk_off', risk_score: 1, reason: 'x' }, agent.token)).statusCode).toBe(403);
  });

  it.each([
    ['an unknown regime', { regime: 'boom', risk_score: 0.5, reason: 'x' }, 'regime'],
    ['risk_score above 1', { regime: 'expansion', risk_score: 1.5, reason: 'x' }, 'risk_score'],
    ['no reason', { regime: 'expansion', risk_score: 0.5 }, 'reason'],
    ['a malformed date', { regime: 'expansion', risk_score: 0.5, reason: 'x', date: '20/03/2024' }, 'date'],
    ['incomplete probabilities', { regime: 'expansion', risk_score: 0.5, reason: 'x', probabilities: { expansion: 1 } }, 'probabilities.recovery'],
    ['an unknown field', { regime: 'expansion', risk_score: 0.5, reason: 'x', source: 'pipeline' }, 'source'],
    // Each of these was a 500 before: Postgres refuses NUL in text and year 0000 in a date; JCS refuses a lone surrogate.
    ['a NUL in the reason', { regime: 'expansion', risk_score: 0.5, reason: 'x\u0000' }, 'reason'],
    ['a NUL in model_version', { regime: 'expansion', risk_score: 0.5, reason: 'x', model_version: 'v\u0000' }, 'model_version'],
    ['a lone surrogate in model_version', { regime: 'expansion', risk_score: 0.5, reason: 'x', model_version: 'v\ud800' }, 'model_version'],
    ['the year 0000', { regime: 'expansion', risk_score: 0.5, reason: 'x', date: '0000-01-01' }, 'date'],
    ['an impossible day', { regime: 'expansion', risk_score: 0.5, reason: 'x', date: '2024-02-30' }, 'date'],
  ])('POST /engine/admin/regime: 422 for %s, and nothing is published', async (_name, body, field) => {
    const before = (await h.call('GET', '/engine/regime')).json().hash;
    const res = await h.call('POST', '/engine/admin/regime', body);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
    expect((await h.call('GET', '/engine/regime')).json().hash).toBe(before);
  });
});

describe('shadow mode', () => {
  let h: EngineHarness;
  let agent: { agent_id: string; token: string };

  beforeAll(async () => {
    h = await engineHarness();
    await h.publishRegime('expansion');
    agent = await h.registerAgent();
  });
  afterAll(async () => h?.close());

  it('GET shows {enabled, reason, changed_at, changed_by}, off and never changed at first', async () => {
    const res = await h.call('GET', '/engine/admin/shadow-mode');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ enabled: false, reason: null, changed_at: null, changed_by: null });
  });

  it('POST turns it on and returns the same object as a GET; a violation then passes as shadow_blocked', async () => {
    const before = Date.now();
    const res = await h.call('POST', '/engine/admin/shadow-mode', { enabled: true, reason: 'rolling out policy 1.0.0' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['changed_at', 'changed_by', 'enabled', 'reason']);
    expect(body).toMatchObject({ enabled: true, reason: 'rolling out policy 1.0.0' });
    expect(Date.parse(body.changed_at)).toBeGreaterThanOrEqual(before - 5000);
    expect(body.changed_by).toMatch(/^token:[0-9a-f-]{36} \(bootstrap\)$/);
    expect((await h.call('GET', '/engine/admin/shadow-mode')).json()).toEqual(body);

    const auth = await h.call('POST', '/engine/authorize', h.order(agent.agent_id, TOO_BIG), agent.token);
    expect(auth.statusCode, auth.body).toBe(200);
    expect(auth.json()).toMatchObject({ authorized: true, shadow_blocked: true });
  });

  it('POST turns it off: a violation is 403 again', async () => {
    const res = await h.call('POST', '/engine/admin/shadow-mode', { enabled: false });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ enabled: false, reason: null });
    expect(res.json().changed_at).not.toBeNull();
    const auth = await h.call('POST', '/engine/authorize', h.order(agent.agent_id, TOO_BIG), agent.token);
    expect(auth.statusCode).toBe(403);
    expect(auth.json().code).toBe('notional_cap_exceeded');
  });

  it('changed_by names the owner token that made the change', async () => {
    const ops = (await h.call('POST', '/engine/admin/tokens', { client_name: 'ops-oncall', role: 'owner' })).json();
    const res = await h.call('POST', '/engine/admin/shadow-mode', { enabled: false, reason: 'audit' }, ops.token);
    expect(res.json().changed_by).toBe(`token:${ops.token_id} (ops-oncall)`);
  });

  it.each([
    ['no enabled', { reason: 'x' }, 'enabled'],
    ['a string enabled', { enabled: 'true' }, 'enabled'],
    ['an unknown field', { enabled: true, until: 'tomorrow' }, 'until'],
    ['a NUL in the reason', { enabled: true, reason: 'x\u0000' }, 'reason'],
  ])('POST: 422 for %s, and nothing changes', async (_name, body, field) => {
    const before = (await h.call('GET', '/engine/admin/shadow-mode')).json();
    const res = await h.call('POST', '/engine/admin/shadow-mode', body);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
    expect((await h.call('GET', '/engine/admin/shadow-mode')).json()).toEqual(before);
  });
});

describe('a second engine instance on the same store', () => {
  let h: EngineHarness;
  let sql2: Sql;
  let ctx2: EngineContext;
  let app2: FastifyInstance;
  let agent: { agent_id: string; token: string };

  /** Polls `probe` every 20 ms until it holds; returns the milliseconds it took, or fails after `withinMs`. */
  async function within(withinMs: number, probe: () => Promise<boolean>): Promise<number> {
    const start = Date.now();
    for (;;) {
      if (await probe()) return Date.now() - start;
      if (Date.now() - start > withinMs) throw new Error(`not seen within ${withinMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  const call2 = (method: 'GET' | 'POST', url: string, body?: unknown, token = h.ownerToken) =>
    app2.inject({ method, url, ...(body === undefined ? {} : { payload: body as object }), headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    h = await engineHarness();
    await h.publishRegime('expansion');
    agent = await h.registerAgent();
    // Its own connection pool, its own state and refresh timer: another process in all but name.
    sql2 = connect(h.store.url, { max: 5 });
    ctx2 = await createEngineContext(h.config, sql2, { now: () => h.clock.now, policy: h.ctx.policy });
    app2 = await buildApp(h.config, { sql: sql2, logger: false, engine: ctx2 });
    await app2.ready();
  });
  afterAll(async () => {
    await app2?.close();
    ctx2?.state.stop();
    await sql2?.end({ timeout: 5 });
    await h?.close();
  });

  it('both instances start on the same regime', async () => {
    const one = (await h.call('GET', '/engine/regime')).json();
    const two = (await call2('GET', '/engine/regime')).json();
    expect(two.hash).toBe(one.hash);
  });

  it('sees a shadow-mode change made on the first within one second, and enforces it', async () => {
    const violation = () => call2('POST', '/engine/authorize', h.order(agent.agent_id, TOO_BIG), agent.token);
    expect((await violation()).statusCode).toBe(403);

    expect((await h.call('POST', '/engine/admin/shadow-mode', { enabled: true, reason: 'dry run' })).statusCode).toBe(200);
    await within(1000, async () => ctx2.state.shadow.enabled);
    const passed = await violation();
    expect(passed.statusCode, passed.body).toBe(200);
    expect(passed.json().shadow_blocked).toBe(true);

    expect((await h.call('POST', '/engine/admin/shadow-mode', { enabled: false })).statusCode).toBe(200);
    await within(1000, async () => (await violation()).statusCode === 403);
  });

  it('sees a new regime broadcast published on the first within one second, and enforces it', async () => {
    const posted = await h.call('POST', '/engine/admin/regime', { regime: 'risk_off', risk_score: 0.97, reason: 'liquidity shock' });
    expect(posted.statusCode).toBe(201);
    const hash = posted.json().hash as string;
    await within(1000, async () => (await call2('GET', '/engine/regime')).json().hash === hash);
    expect((await call2('GET', '/engine/regime')).json()).toMatchObject({ regime: 'risk_off', regime_id: 3, hash });

    const denied = await call2('POST', '/engine/authorize', h.order(agent.agent_id), agent.token);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe('side_not_allowed');

    // And back the other way: published on the second, seen by the first.
    const back = await call2('POST', '/engine/admin/regime', { regime: 'expansion', risk_score: 0.1, reason: 'all clear' });
    expect(back.statusCode).toBe(201);
    await within(1000, async () => (await h.call('GET', '/engine/regime')).json().hash === back.json().hash);
    expect((await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token)).statusCode).toBe(200);
  });
});

describe('EngineState: a local change is never undone by a refresh that began before it', () => {
  let h: EngineHarness;

  beforeAll(async () => {
    h = await engineHarness();
  });
  afterAll(async () => h?.close());

  it('a refresh that read the store before a publish does not overwrite the adopted regime and shadow mode', async () => {
    // A store handle whose answers are held back until `release()`: the refresh reads the old state first.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let answered = 0;
    const held = <T>(p: Promise<T>): Promise<T> =>
      p.then(async (r) => {
        answered += 1;
        await gate;
        return r;
      });
    const real = h.store.sql;
    const slow = new Proxy(real, {
      apply: (target, self, args) => held(Reflect.apply(target, self, args) as Promise<unknown>),
      get: (target, prop, receiver) =>
        prop === 'unsafe' ? (...args: Parameters<Sql['unsafe']>) => held(target.unsafe(...args)) : Reflect.get(target, prop, receiver),
    }) as Sql;

    const state = new EngineState(slow, 1000);
    const refreshing = state.refresh();
    // Wait until both reads have their (old) answers: no regime, shadow off.
    for (let i = 0; answered < 2; i++) {
      if (i > 200) throw new Error('the refresh never read');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }

    const b = await publishManual(real, { date: '2024-01-02', regime: 'recovery', risk_score: 0.3, model_version: 'm', reason: 't' });
    state.adoptRegime(b);
    const s = await setShadowMode(real, true, 'dry run', 'test');
    state.adoptShadow(s);
    expect(state.regime?.id).toBe(b.id);
    expect(state.shadow.enabled).toBe(true);

    release();
    await refreshing;
    expect(state.regime?.id).toBe(b.id);
    expect(state.shadow.enabled).toBe(true);

    // A refresh that starts after the change reads it from the store.
    await state.refresh();
    expect(state.regime).toMatchObject({ id: b.id, regime: 'recovery', hash: b.hash });
    expect(state.shadow).toMatchObject({ enabled: true, reason: 'dry run' });
  });
});

describe('effective_since of a repeated broadcast', () => {
  it('keeps the time the regime content took effect, so agents acting on it are not behind; a change resets it', async () => {
    // No lag allowed at all: an agent must act on the regime content in force.
    const e = await engineHarness({ policy: { agent_valid_time_max_lag_ms: 0 } });
    // Yesterday's data (UTC): recent enough for authorize whatever day the test runs.
    const date = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    try {
      const first = (await e.call('POST', '/engine/admin/regime', { regime: 'recovery', risk_score: 0.3, reason: 'r1', date })).json();
      await new Promise((r) => setTimeout(r, 20));
      const repeat = (await e.call('POST', '/engine/admin/regime', { regime: 'recovery', risk_score: 0.3, reason: 'r2', date })).json();
      expect(repeat.hash).toBe(first.hash);
      expect(repeat.effective_since).toBe(first.effective_since);
      expect(Date.parse(repeat.published_at)).toBeGreaterThan(Date.parse(first.published_at));
      const changed = (await e.call('POST', '/engine/admin/regime', { regime: 'tightening', risk_score: 0.6, reason: 'r3', date })).json();
      expect(changed.effective_since).toBe(changed.published_at);

      // An agent whose agent_valid_time is the moment the recovery regime took effect is not lagging after a repeat.
      const again = (await e.call('POST', '/engine/admin/regime', { regime: 'tightening', risk_score: 0.6, reason: 'r4', date })).json();
      const { agent_id, token } = await e.registerAgent();
      e.clock.now = Date.parse(again.published_at) + 10 * 60_000;
      const res = await e.call('POST', '/engine/authorize', e.order(agent_id, { agent_valid_time: Date.parse(changed.effective_since) }), token);
      expect(res.statusCode, res.body).toBe(200);
      // One millisecond before the content took effect is behind it.
      const behind = await e.call('POST', '/engine/authorize', e.order(agent_id, { agent_valid_time: Date.parse(changed.effective_since) - 1 }), token);
      expect(behind.json().code).toBe('agent_valid_time_lag');
    } finally {
      await e.close();
    }
  });
});
