/**
 * The connection caps and the handshake bound over HTTPS (`startServer` with TLS_CERT): the per-address cap
 * counts TCP connections before their TLS handshake, closes the one over it at once, releases a connection when
 * it closes, handshaken or not, and leaves other addresses alone; a connection that never starts its handshake
 * is closed at the headers bound. (HTTP is held by test/reliability/slow-clients.test.ts.)
 */
import fs from 'node:fs';
import { connect, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, type Config } from '../../src/core/config.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { makeCa, type TestCa } from '../helpers/certificates.js';
import { testStore, type TestStore } from '../helpers/db.js';

let dir: string;
let store: TestStore;
let ca: TestCa;
let base: Config;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradeseal-caps-'));
  ca = makeCa(dir, 'Caps CA');
  store = await testStore();
  const cert = ca.server('server');
  base = configWith({ databaseUrl: store.url, logLevel: 'silent', port: 0, tlsCert: cert.certPath, tlsKey: cert.keyPath });
});
afterAll(async () => {
  await store?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function withServer<T>(config: Partial<Config>, fn: (target: { host: string; port: number }) => Promise<T>): Promise<T> {
  const server: RunningServer = await startServer({ ...base, ...config });
  try {
    const url = new URL(server.url);
    return await fn({ host: url.hostname, port: Number(url.port) });
  } finally {
    await server.close();
  }
}

/** A TCP connection that sends nothing (no TLS handshake); resolves once connected. */
const idle = (target: { host: string; port: number }, localAddress: string): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const socket = connect({ ...target, localAddress });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });

const closed = (socket: Socket, ms: number): Promise<number> =>
  new Promise((resolve, reject) => {
    const from = Date.now();
    if (socket.destroyed) return resolve(0);
    socket.on('error', () => {});
    socket.once('close', () => resolve(Date.now() - from));
    setTimeout(() => reject(new Error(`the server did not close the connection within ${ms} ms`)), ms).unref();
  });

/** `GET /livez` over HTTPS from `localAddress`, on a connection of its own: the status line, or the error's code. */
const livez = (target: { host: string; port: number }, localAddress: string): Promise<string> =>
  new Promise((resolve) => {
    const socket = tls.connect({ socket: connect({ ...target, localAddress }), ca: ca.cert, servername: 'localhost' });
    let response = '';
    socket.once('secureConnect', () => socket.write('GET /livez HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'));
    socket.on('data', (chunk: Buffer) => (response += chunk.toString('utf8')));
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    socket.once('close', () => resolve(response.split('\r\n')[0] || 'closed without an answer'));
  });

describe('connection caps over HTTPS', () => {
  it('close the connection over the per-address cap at once, before its handshake, and admit again once one closes', async () => {
    // Long bounds: only the cap may close a connection here.
    await withServer({ httpMaxConnectionsPerAddress: 3, httpHeadersTimeoutMs: 60_000, httpRequestTimeoutMs: 60_000 }, async (target) => {
      const held = [await idle(target, '127.0.0.3'), await idle(target, '127.0.0.3'), await idle(target, '127.0.0.3')];
      const over = await idle(target, '127.0.0.3');
      await closed(over, 5000);
      expect(await livez(target, '127.0.0.3')).not.toMatch(/^HTTP\/1\.1 200/);
      // Another address is not affected.
      expect(await livez(target, '127.0.0.4')).toBe('HTTP/1.1 200 OK');
      held[0]!.destroy();
      // The server releases the connection when it sees it close; a new one is then admitted.
      let status = '';
      const deadline = Date.now() + 5000;
      while ((status = await livez(target, '127.0.0.3')) !== 'HTTP/1.1 200 OK' && Date.now() < deadline);
      expect(status).toBe('HTTP/1.1 200 OK');
      // Handshaken connections are released too when they close: many in a row, never more than the cap at once.
      for (let i = 0; i < 6; i++) expect(await livez(target, '127.0.0.3')).toBe('HTTP/1.1 200 OK');
      for (const socket of held) socket.destroy();
    });
  });

  it('close a connection that never starts its TLS handshake at the headers bound', async () => {
    await withServer({ httpHeadersTimeoutMs: 1000, httpRequestTimeoutMs: 2000 }, async (target) => {
      const socket = await idle(target, '127.0.0.5');
      const ms = await closed(socket, 10_000);
      expect(ms).toBeLessThanOrEqual(1000 + 1000);
    });
  });
});
