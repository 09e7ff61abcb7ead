/** `startServer`: real HTTP on a real port, migrations on start, ENGINE_OWNER_TOKEN, one service only. */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { newTokenSecret } from '../../src/engine/store/tokens.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { testStore, type TestStore } from '../helpers/db.js';

let store: TestStore;
beforeAll(async () => {
  store = await testStore({ migrated: false });
});
afterAll(async () => store?.close());

describe('startServer', () => {
  it('migrates an empty store, serves both services over HTTP, and registers ENGINE_OWNER_TOKEN once', async () => {
    const owner = newTokenSecret();
    const config = configWith({ databaseUrl: store.url, logLevel: 'silent', engineOwnerToken: owner, port: 0 });
    let server: RunningServer | undefined = await startServer(config);
    try {
      for (const path of ['/engine/health', '/v1/health']) {
        const res = await fetch(`${server.url}${path}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('x-request-id')).toBeTruthy();
        // No regime is published yet: the engine says so (degraded), the signal service is plainly up.
        expect(await res.json()).toMatchObject({ status: path === '/v1/health' ? 'ok' : 'degraded', db_ok: true, cert_expiry_status: null });
      }
      const tokens = await fetch(`${server.url}/engine/admin/tokens`, { headers: { authorization: `Bearer ${owner}` } });
      expect(tokens.status).toBe(200);
      expect(((await tokens.json()) as { tokens: unknown[] }).tokens).toHaveLength(1);
      const broken = await fetch(`${server.url}/engine/authorize`, {
        method: 'POST',
        body: '{"agent_id": ',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${owner}` },
      });
      expect(broken.status).toBe(422);
      expect(((await broken.json()) as { code: string }).code).toBe('invalid_json');
      await server.close();

      // A restart with the same setting registers nothing new.
      server = await startServer(config);
      const again = await fetch(`${server.url}/engine/admin/tokens`, { headers: { authorization: `Bearer ${owner}` } });
      expect(((await again.json()) as { tokens: unknown[] }).tokens).toHaveLength(1);
    } finally {
      await server?.close();
    }
  });

  it('serves one service with `services`', async () => {
    const server = await startServer(configWith({ databaseUrl: store.url, logLevel: 'silent', port: 0 }), { services: ['signals'] });
    try {
      expect((await fetch(`${server.url}/v1/health`)).status).toBe(200);
      expect((await fetch(`${server.url}/engine/health`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it("an over-long URL, or bytes that are not HTTP, are answered in the error body with a request id, not Fastify's shape", async () => {
    const server = await startServer(configWith({ databaseUrl: store.url, logLevel: 'silent', port: 0 }), { services: ['engine'] });
    try {
      const raw = async (request: string): Promise<{ head: string; body: Record<string, unknown> }> => {
        const { hostname, port } = new URL(server.url);
        const socket = connect({ host: hostname, port: Number(port) });
        socket.end(request);
        const chunks: Buffer[] = [];
        for await (const chunk of socket) chunks.push(chunk as Buffer);
        const [head, body] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n') as [string, string];
        return { head, body: JSON.parse(body) as Record<string, unknown> };
      };
      const long = await raw(`GET /engine/traces?agent_id=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(long.head).toMatch(/^HTTP\/1\.1 431 /);
      expect(long.head).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/i);
      expect(long.body).toEqual({ code: 'headers_too_large', detail: expect.stringMatching(/larger than 16 KiB/) });
      const garbage = await raw('NOT HTTP AT ALL\r\n\r\n');
      expect(garbage.head).toMatch(/^HTTP\/1\.1 400 /);
      expect(garbage.body).toMatchObject({ code: 'bad_request' });
    } finally {
      await server.close();
    }
  });
});
