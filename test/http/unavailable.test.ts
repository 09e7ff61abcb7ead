/**
 * Every 503 says when to ask again (`Retry-After`, RFC 9110 §10.2.3): the health routes of both services (and
 * the IRL edge's) and /readyz when the store does not answer, the store's routes while a server waits for its
 * store at start (src/http/store-gate.ts), and the service's own 503 (`pipeline_lag`). The routes that never
 * need the store stay open meanwhile.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { buildApp } from '../../src/http/app.js';
import { issueAccountKey } from '../../src/signals/ops/keys.js';
import { connect, type Sql } from '../../src/store/driver.js';
import { testStore, type TestStore } from '../helpers/db.js';

const HEALTH = ['/engine/health', '/irl/health', '/v1/health', '/readyz'];

let store: TestStore;
let dead: Sql;
let down: FastifyInstance;
let waiting: FastifyInstance;
let ready = false;

beforeAll(async () => {
  store = await testStore();
  // Nothing listens on port 1: every connection is refused at once.
  dead = connect('postgres://nobody@127.0.0.1:1/none', { connectTimeoutMs: 1000 });
  down = await buildApp(configWith({ logLevel: 'silent' }), { sql: dead, logger: false });
  waiting = await buildApp(configWith({ logLevel: 'silent' }), { sql: store.sql, logger: false, storeReady: () => ready });
});
afterAll(async () => {
  await down?.close();
  await waiting?.close();
  await dead?.end({ timeout: 0 });
  await store?.close();
});

describe('Retry-After on every 503', () => {
  it("health of each service, the IRL edge's and /readyz, when the store does not answer", async () => {
    for (const url of HEALTH) {
      const res = await down.inject({ url });
      expect(res.statusCode, url).toBe(503);
      expect(res.headers['retry-after'], url).toBe('1');
      expect(res.json(), url).toMatchObject({ status: 'unavailable', code: 'service_unavailable' });
    }
  });

  it("the store's routes, health and /readyz while the server waits for its store at start; the others stay open", async () => {
    const key = (await issueAccountKey(store.sql, { email: 'waiting@example.test', tier: 'pro' })).api_key;
    const gated = [
      { url: '/engine/admin/tokens', headers: { authorization: `Bearer tse_${'a'.repeat(43)}` } },
      { url: '/v1/account', headers: { 'x-signals-key': key } },
      { url: '/v1/signals/latest', headers: { 'x-signals-key': key } },
      { url: '/irl/traces' },
    ];
    for (const { url, headers } of gated) {
      const res = await waiting.inject({ url, ...(headers ? { headers } : {}) });
      expect(res.statusCode, url).toBe(503);
      expect(res.headers['retry-after'], url).toBe('1');
      expect(res.json(), url).toMatchObject({ code: 'service_unavailable' });
    }
    for (const url of HEALTH) {
      const res = await waiting.inject({ url });
      expect(res.statusCode, url).toBe(503);
      expect(res.headers['retry-after'], url).toBe('1');
    }
    for (const url of ['/livez', '/openapi.json', '/metrics']) expect((await waiting.inject({ url })).statusCode, url).toBe(200);
    expect((await waiting.inject({ url: '/v1/nowhere' })).statusCode).toBe(404);
    ready = true;
    expect((await waiting.inject({ url: '/v1/account', headers: { 'x-signals-key': key } })).statusCode).toBe(200);
    for (const url of HEALTH) expect((await waiting.inject({ url })).statusCode, url).toBe(200);
  });

  it("the service's own 503: nothing published yet (pipeline_lag)", async () => {
    ready = true;
    const key = (await issueAccountKey(store.sql, { email: 'lag@example.test', tier: 'pro' })).api_key;
    const res = await waiting.inject({ url: '/v1/signals/latest', headers: { 'x-signals-key': key } });
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toMatchObject({ code: 'pipeline_lag' });
    expect(res.headers['retry-after']).toBe('1');
  });
});
