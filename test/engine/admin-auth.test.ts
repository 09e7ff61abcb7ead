/**
 * Authentication and roles across the engine's routes (docs/decisions/0013-engine-tokens.md):
 * every route but health needs a bearer token (401 with WWW-Authenticate otherwise); admin routes need an
 * owner (403); an auditor reads but never writes (403 on authorize and bind). And health: 200 without a
 * token, 503 when the store does not answer.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { connect } from '../../src/store/driver.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
let agent: { agent_id: string; token: string };
let traceId: string;
let auditor: string;

beforeAll(async () => {
  h = await engineHarness();
  await h.publishRegime('expansion');
  agent = await h.registerAgent();
  const auth = await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token);
  expect(auth.statusCode, auth.body).toBe(200);
  traceId = auth.json().trace_id;
  auditor = (await h.call('POST', '/engine/admin/tokens', { client_name: 'auditor', role: 'auditor' })).json().token;
});
afterAll(async () => h?.close());

/** Method, URL (built when the test runs, after setup), optional body. */
type Route = [method: string, url: () => string, body?: () => unknown];

/** A test name for a route, from its URL function's source (ids are not known when tests are collected). */
const routeName = (r: Route): string =>
  `${r[0]} ${r[1]
    .toString()
    .replace(/^\(\) => /, '')
    .replace(/\$\{[^}]+\}/g, '{id}')
    .replace(/[`']/g, '')}`;

const readRoutes: Route[] = [
  ['GET', () => `/engine/trace/${traceId}`],
  ['GET', () => `/engine/trace/${traceId}/verify`],
  ['GET', () => '/engine/traces'],
  ['GET', () => '/engine/pending'],
  ['GET', () => '/engine/orphans'],
  ['GET', () => '/engine/shadow-violations'],
  ['GET', () => '/engine/regime'],
];
const writeRoutes: Route[] = [
  ['POST', () => '/engine/authorize', () => h.order(agent.agent_id)],
  ['POST', () => '/engine/bind-execution', () => ({ trace_id: traceId, exchange_tx_id: 'X-auth', execution_status: 'Filled' })],
];
const ownerRoutes: Route[] = [
  ['GET', () => '/engine/admin/shadow-mode'],
  ['POST', () => '/engine/admin/shadow-mode', () => ({ enabled: true, reason: 'x' })],
  ['POST', () => '/engine/admin/regime', () => ({ regime: 'risk_off', risk_score: 0.9, reason: 'x' })],
  ['POST', () => '/engine/admin/tokens', () => ({ client_name: 'x', role: 'owner' })],
  ['GET', () => '/engine/admin/tokens'],
  ['DELETE', () => `/engine/admin/tokens/${randomUUID()}`],
  ['POST', () => '/engine/admin/agents', () => ({ name: 'x', max_notional: 1, models: [] })],
  ['GET', () => '/engine/admin/agents'],
  ['GET', () => `/engine/admin/agents/${agent.agent_id}`],
  ['POST', () => `/engine/admin/agents/${agent.agent_id}/models`, () => ({ model_id: 'm', model_hash_hex: 'b'.repeat(64) })],
  ['PATCH', () => `/engine/admin/agents/${agent.agent_id}/status`, () => ({ status: 'Suspended' })],
];
const allRoutes = [...readRoutes, ...writeRoutes, ...ownerRoutes];

const send = (route: Route, token: string | null) => h.call(route[0], route[1](), route[2]?.(), token);

describe('missing or bad tokens: 401', () => {
  it.each(allRoutes.map((r) => [routeName(r), r] as const))('%s without a token → 401 with WWW-Authenticate', async (_name, route) => {
    const res = await send(route, null);
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('unauthorized');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer realm=/);
  });

  it.each([
    ['a Basic scheme', 'Basic dXNlcjpwYXNz'],
    ['an empty bearer', 'Bearer '],
    ['an unknown tse_ token', `Bearer tse_${'A'.repeat(43)}`],
    ['a token without the prefix', `Bearer ${'A'.repeat(43)}`],
    ['an overlong token', `Bearer tse_${'A'.repeat(500)}`],
    ['two tokens', 'Bearer tse_a tse_b'],
  ])('401 for %s', async (_name, header) => {
    const res = await h.app.inject({ method: 'GET', url: '/engine/traces', headers: { authorization: header } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
  });

  it('the bearer scheme is case-insensitive', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/engine/traces', headers: { authorization: `bearer ${h.ownerToken}` } });
    expect(res.statusCode).toBe(200);
  });

  it('none of the state changes happened', async () => {
    const shadow = (await h.call('GET', '/engine/admin/shadow-mode')).json();
    expect(shadow.enabled).toBe(false);
    expect((await h.call('GET', '/engine/regime')).json().regime).toBe('expansion');
    const [row] = await h.store.sql`select final_proof from traces where trace_id = ${traceId}`;
    expect(row!.final_proof).toBeNull();
  });
});

describe('roles: 403', () => {
  it.each(ownerRoutes.map((r) => [routeName(r), r] as const))('%s with a client or auditor token → 403 forbidden', async (_name, route) => {
    for (const token of [agent.token, auditor]) {
      const res = await send(route, token);
      expect(res.statusCode, `${route[0]} ${route[1]()}: ${res.body}`).toBe(403);
      expect(res.json().code).toBe('forbidden');
    }
  });

  it('an auditor reads traces and every listing', async () => {
    for (const route of readRoutes) {
      const res = await send(route, auditor);
      expect(res.statusCode, `${route[0]} ${route[1]()}: ${res.body}`).toBe(200);
    }
    expect((await h.call('GET', `/engine/trace/${traceId}`, undefined, auditor)).json().trace_id).toBe(traceId);
  });

  it('an auditor cannot authorize (403) nor bind (403)', async () => {
    const auth = await h.call('POST', '/engine/authorize', h.order(agent.agent_id), auditor);
    expect(auth.statusCode).toBe(403);
    expect(auth.json().code).toBe('forbidden');
    const bind = await h.call('POST', '/engine/bind-execution', { trace_id: traceId, exchange_tx_id: 'X-aud', execution_status: 'Filled' }, auditor);
    expect(bind.statusCode).toBe(403);
    const [row] = await h.store.sql`select final_proof from traces where trace_id = ${traceId}`;
    expect(row!.final_proof).toBeNull();
  });

  it('a client token reads and writes but is refused admin', async () => {
    const res = await h.call('GET', `/engine/trace/${traceId}`, undefined, agent.token);
    expect(res.statusCode).toBe(200);
    expect((await h.call('GET', '/engine/admin/agents', undefined, agent.token)).statusCode).toBe(403);
  });

  it('a client token bound to one agent cannot authorize for another (403 agent_not_permitted)', async () => {
    const other = await h.registerAgent();
    const res = await h.call('POST', '/engine/authorize', h.order(other.agent_id), agent.token);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('agent_not_permitted');
  });
});

describe('GET /engine/health', () => {
  it('200 {status, db_ok, cert_expiry_status} without a token, with the regime in force and the age of its data', async () => {
    const res = await h.call('GET', '/engine/health', undefined, null);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ok',
      db_ok: true,
      cert_expiry_status: null,
      warnings: [],
      regime: {
        regime: 'expansion',
        source: 'manual',
        date: expect.any(String),
        data_complete_at: expect.any(String),
        age_ms: expect.any(Number),
        max_age_ms: 604_800_000,
        stale: false,
      },
    });
  });

  it('ignores a bad token rather than refusing', async () => {
    const res = await h.call('GET', '/engine/health', undefined, 'tse_nonsense');
    expect(res.statusCode).toBe(200);
  });

  it('503 with db_ok false when the store does not answer', async () => {
    // A store nobody listens on: port 1 refuses connections at once.
    const dead = connect('postgres://postgres@127.0.0.1:1/none', { max: 1 });
    const app = await buildApp(h.config, { sql: dead, logger: false, services: ['engine'], engine: h.ctx });
    try {
      const res = await app.inject({ method: 'GET', url: '/engine/health' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ status: 'unavailable', db_ok: false, cert_expiry_status: null });
    } finally {
      await app.close();
      await dead.end({ timeout: 1 });
    }
  });
});

describe('authentication comes before validation', () => {
  it('an invalid body without a token answers 401, not 422: nothing about the schema leaks to strangers', async () => {
    for (const [method, url] of [
      ['POST', '/engine/authorize'],
      ['POST', '/engine/bind-execution'],
      ['POST', '/engine/admin/agents'],
      ['POST', '/engine/admin/tokens'],
    ]) {
      const res = await h.call(method as string, url as string, { nonsense: true }, null);
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(res.json().code).toBe('unauthorized');
    }
  });

  it('malformed JSON without a token answers 401', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/engine/authorize', payload: '{"broken": ', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(401);
  });
});
