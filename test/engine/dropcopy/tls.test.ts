/**
 * The drop-copy session over TLS (FIX_DROPCOPY_TLS_*; src/engine/dropcopy/runner.ts), both roles, against a real
 * PostgreSQL, with certificates from a test CA: as acceptor it requires a client certificate of the CA; as
 * initiator it calls the exchange with its client certificate, verifies the exchange's, and logs on.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, type DropCopyConfig } from '../../../src/core/config.js';
import { startDropCopyRunner, type DropCopyRunner } from '../../../src/engine/dropcopy/runner.js';
import { makeCa, type TestCa } from '../../helpers/certificates.js';
import { testStore, type TestStore } from '../../helpers/db.js';
import { freePort, waitUntil } from '../../helpers/dropcopy-server.js';
import { fillBody, rawPeerOn, type RawFixPeer } from '../../helpers/raw-fix-peer.js';

const US = 'DESK';
const EXCHANGE = 'XNAS';
const log = { info: () => {}, warn: () => {}, error: () => {} };

let store: TestStore;
let dir: string;
let ca: TestCa;

beforeAll(async () => {
  store = await testStore();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dropcopy-tls-'));
  ca = makeCa(dir, 'dropcopy-ca');
});
afterAll(async () => {
  await store?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function runner(d: DropCopyConfig): DropCopyRunner {
  return startDropCopyRunner({ sql: store.sql, config: configWith({ databaseUrl: store.url, logLevel: 'silent', dropCopy: d }), log, retryMs: 50 });
}

const applied = (execId: string) => store.sql`select 1 from dropcopy_executions where exec_id = ${execId}`;

describe('TLS', () => {
  it('as acceptor: takes a client certificate of its CA, refuses a client without one', async () => {
    const port = await freePort();
    const server = ca.server('acceptor');
    const client = ca.client('exchange', EXCHANGE);
    const r = runner({
      role: 'acceptor',
      host: '127.0.0.1',
      port,
      senderCompId: US,
      targetCompId: EXCHANGE,
      heartbeatS: 30,
      reconnectS: 1,
      tls: { cert: server.certPath, key: server.keyPath, ca: ca.certPath },
    });
    const open = (withCert: boolean) =>
      new Promise<tls.TLSSocket>((resolve, reject) => {
        const s = tls.connect(
          { host: '127.0.0.1', port, ca: ca.cert, servername: 'localhost', ...(withCert ? { cert: client.cert, key: client.key } : {}) },
          () => resolve(s),
        );
        s.once('error', reject);
      });
    try {
      const p = await waitUntil(
        'the TLS listener',
        async () => open(true).catch(() => null),
        (s) => s !== null,
        20_000,
      );
      const peer = rawPeerOn(p!, EXCHANGE, US);
      peer.send('A', [
        [98, 0],
        [108, 30],
        [141, 'Y'],
      ]);
      await peer.waitFor('the logon answer', (m) => m.tags.get(35) === 'A');
      const execId = `E-${randomUUID()}`;
      peer.send('8', fillBody(execId, randomUUID()));
      await waitUntil(
        'the fill applied',
        () => applied(execId),
        (rows) => rows.length === 1,
        10_000,
      );
      peer.close();
      await peer.closed;
      // Without a client certificate the handshake fails, or the server drops the connection before any FIX.
      const refused = await open(false).then(
        async (s) => {
          const p2 = rawPeerOn(s, EXCHANGE, US);
          p2.send('A', [
            [98, 0],
            [108, 30],
            [141, 'Y'],
          ]);
          await p2.closed;
          return p2.received.length === 0;
        },
        () => true,
      );
      expect(refused).toBe(true);
    } finally {
      await r.stop();
    }
  }, 60_000);

  it("as initiator: calls the exchange with its client certificate, verifies the exchange's, and logs on", async () => {
    const port = await freePort();
    const exchangeCert = ca.server('exchange');
    const ours = ca.client('desk', US);
    const peers: RawFixPeer[] = [];
    const exchange = tls.createServer(
      { cert: exchangeCert.cert, key: exchangeCert.key, ca: ca.cert, requestCert: true, rejectUnauthorized: true },
      (socket) => {
        const p = rawPeerOn(socket, EXCHANGE, US);
        peers.push(p);
        void p
          .waitFor("the engine's logon", (m) => m.tags.get(35) === 'A')
          .then(
            () =>
              p.send('A', [
                [98, 0],
                [108, 30],
                [141, 'Y'],
              ]),
            () => {},
          );
      },
    );
    await new Promise<void>((resolve) => exchange.listen(port, '127.0.0.1', resolve));
    const r = runner({
      role: 'initiator',
      host: '127.0.0.1',
      port,
      senderCompId: US,
      targetCompId: EXCHANGE,
      heartbeatS: 30,
      reconnectS: 1,
      tls: { cert: ours.certPath, key: ours.keyPath, ca: ca.certPath },
    });
    try {
      await waitUntil(
        'the session logged on',
        () => store.sql<Array<{ state: string }>>`select state from dropcopy_sessions`,
        (rows) => rows[0]?.state === 'logged_on',
        20_000,
      );
      const p = peers[peers.length - 1]!;
      const execId = `E-${randomUUID()}`;
      p.send('8', fillBody(execId, randomUUID()));
      await waitUntil(
        'the fill applied',
        () => applied(execId),
        (rows) => rows.length === 1,
        10_000,
      );
    } finally {
      await r.stop();
      for (const p of peers) p.close();
      await new Promise<void>((resolve) => exchange.close(() => resolve()));
    }
  }, 60_000);
});
