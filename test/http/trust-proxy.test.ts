/**
 * TRUST_PROXY: a request's client address (`request.ip`, which the keys' IP lock reads) is the one
 * `X-Forwarded-For` names only when the request comes from a trusted proxy; anyone else's header is ignored.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { buildApp } from '../../src/http/app.js';
import { testStore } from '../helpers/db.js';

let store: Awaited<ReturnType<typeof testStore>>;
const apps: FastifyInstance[] = [];

async function appWith(trustProxy: string[] | null): Promise<FastifyInstance> {
  const app = await buildApp(configWith({ logLevel: 'silent', trustProxy }), { sql: store.sql, logger: false, services: ['engine'] });
  // A route of the test's own that shows the address the app sees.
  app.get('/engine/_ip', async (req) => ({ ip: req.ip }));
  await app.ready();
  apps.push(app);
  return app;
}

const ipOf = async (app: FastifyInstance, remoteAddress: string, forwarded?: string): Promise<string> => {
  const res = await app.inject({ method: 'GET', url: '/engine/_ip', remoteAddress, headers: forwarded ? { 'x-forwarded-for': forwarded } : {} });
  return (res.json() as { ip: string }).ip;
};

beforeAll(async () => {
  store = await testStore();
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await store?.close();
});

describe('TRUST_PROXY', () => {
  it('unset: X-Forwarded-For is ignored, the peer is the client', async () => {
    const app = await appWith(null);
    expect(await ipOf(app, '10.0.0.5', '203.0.113.7')).toBe('10.0.0.5');
  });

  it("set: a trusted proxy's X-Forwarded-For names the client; an untrusted peer's does not", async () => {
    const app = await appWith(['10.0.0.5', '10.1.0.0/16']);
    expect(await ipOf(app, '10.0.0.5', '203.0.113.7')).toBe('203.0.113.7');
    // Two trusted proxies in a row: the nearest address that is not one of them.
    expect(await ipOf(app, '10.1.2.3', '198.51.100.1, 203.0.113.7, 10.0.0.5')).toBe('203.0.113.7');
    // A client that writes the header itself and connects directly is still itself.
    expect(await ipOf(app, '192.0.2.44', '203.0.113.7')).toBe('192.0.2.44');
    expect(await ipOf(app, '10.0.0.5')).toBe('10.0.0.5');
  });
});
