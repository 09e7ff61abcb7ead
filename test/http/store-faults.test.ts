/**
 * A store that is down, restarting or too slow is not a fault of the server: every store fault (src/store/faults.ts)
 * a route meets is answered 503 `service_unavailable` with `Retry-After`, anything else stays a 500 `internal`,
 * and a request the store has not let finish by the request deadline is answered 503 then, never 200 later.
 * (test/reliability/store-outage.test.ts holds the same against a real Postgres stopped, frozen and locked.)
 */
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { buildApp } from '../../src/http/app.js';
import { RETRY_AFTER_SECONDS } from '../../src/http/deadline.js';
import { connect, type Sql } from '../../src/store/driver.js';

/** Codes the driver and the server raise when the store is unavailable or did not answer in time. */
const STORE_FAULTS = [
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  '57P01',
  '57P02',
  '57P03',
  '08006',
  '08001',
  '53300',
  '57014',
  // The session refused: the database dropped while the server runs, the role's password changed.
  '3D000',
  '28P01',
  '28000',
];

let app: FastifyInstance;
let sql: Sql;
let late: { answered: boolean; resolve: () => void; reject: (err: Error) => void };
/** The app's log lines (JSON), at warn and above. */
const logged: Array<{ level: number; msg: string; reqId?: string }> = [];

beforeAll(async () => {
  // Nothing listens there: the app never queries the store in these tests.
  sql = connect('postgres://tradeseal@127.0.0.1:9/none', { connectTimeoutMs: 100 });
  // Store timeouts of 100 ms each: a request deadline of 1.2 s.
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.startsWith('{')) logged.push(JSON.parse(line) as (typeof logged)[number]);
      callback();
    },
  });
  app = await buildApp(configWith({ logLevel: 'warn', storeConnectTimeoutMs: 100, storeStatementTimeoutMs: 100 }), { sql, services: [], logStream });
  app.get<{ Params: { code: string } }>('/engine/_fault/:code', async (req) => {
    throw Object.assign(new Error(`store said ${req.params.code}`), { code: req.params.code });
  });
  app.get('/engine/_bug', async () => {
    throw new TypeError('cannot read properties of undefined');
  });
  const stuck = async (): Promise<{ ok: true }> => {
    await new Promise<void>((resolve, reject) => Object.assign(late, { resolve, reject }));
    late.answered = true;
    return { ok: true };
  };
  app.get('/engine/_stuck', stuck);
  app.post('/engine/_stuck', stuck);
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await sql?.end({ timeout: 0 });
});

describe('store faults over HTTP', () => {
  it.each(STORE_FAULTS)('%s is 503 service_unavailable with Retry-After, without internals', async (code) => {
    const res = await app.inject({ url: `/engine/_fault/${code}` });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe(String(RETRY_AFTER_SECONDS));
    expect(res.headers['x-request-id']).toBeTruthy();
    const body = res.json();
    expect(body).toMatchObject({ code: 'service_unavailable' });
    expect(res.body).not.toContain('store said');
  });

  it("a fault that is not the store's stays 500 internal, with its request id and no Retry-After", async () => {
    for (const url of ['/engine/_bug', '/engine/_fault/23505', '/engine/_fault/42P01']) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(500);
      expect(res.headers['retry-after']).toBeUndefined();
      expect(res.json()).toMatchObject({ code: 'internal', request_id: res.headers['x-request-id'] });
    }
  });

  it.each(['GET', 'POST'] as const)('a %s not finished by the deadline is answered 503 then, and its late result is dropped', async (method) => {
    late = { answered: false, resolve: () => {}, reject: () => {} };
    const started = Date.now();
    const res = await app.inject({ method, url: '/engine/_stuck', ...(method === 'POST' ? { payload: { order: 1 } } : {}) });
    const waited = Date.now() - started;
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe(String(RETRY_AFTER_SECONDS));
    expect(res.json()).toMatchObject({ code: 'service_unavailable', detail: expect.stringMatching(/not answered within 1200 ms/) });
    expect(waited).toBeGreaterThanOrEqual(1100);
    // The handler finishes afterwards: nothing more is sent, and the app goes on answering.
    late.resolve();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(late.answered).toBe(true);
    expect((await app.inject({ url: '/engine/_fault/57P01' })).statusCode).toBe(503);
    expect(logged.filter((l) => l.reqId === res.headers['x-request-id']).map((l) => [l.level, l.msg])).toEqual([
      [40, 'request failed'],
      [40, 'the request finished after its deadline had answered 503; its result was dropped'],
    ]);
  });

  it('a store fault after the deadline is logged at warn, not as an error of the server', async () => {
    late = { answered: false, resolve: () => {}, reject: () => {} };
    const res = await app.inject({ url: '/engine/_stuck' });
    expect(res.statusCode).toBe(503);
    late.reject(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const lines = logged.filter((l) => l.reqId === res.headers['x-request-id']);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [40, 'request failed'],
      [40, 'the request failed after its deadline had answered 503'],
    ]);
  });

  it('logs a store fault at warn and any other fault at error, each under its request id', async () => {
    const store = await app.inject({ url: '/engine/_fault/CONNECTION_CLOSED' });
    const bug = await app.inject({ url: '/engine/_bug' });
    const levelOf = (id: unknown): number[] => logged.filter((l) => l.reqId === id && l.msg === 'request failed').map((l) => l.level);
    expect(levelOf(store.headers['x-request-id'])).toEqual([40]);
    expect(levelOf(bug.headers['x-request-id'])).toEqual([50]);
  });
});
