/**
 * Guarantee: the drop copy is a control, against an exchange that is not us: QuickFIX/C++ (test/helpers/quickfix/)
 * connects to `tradeseal serve` (a child process on PostgreSQL, the session as acceptor) and sends its fills with
 * the tags each case gives; each fill is compared with its authorization and bind, a bind after the drop copy
 * resolves the ORPHAN, and a repeated ExecID is told by its trading day and its fields (the cases:
 * test/helpers/three-way-cases.ts).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { testStore, type TestStore } from '../../helpers/db.js';
import { dropCopyEnv, ENGINE_COMP_ID, EXCHANGE_COMP_ID, freePort } from '../../helpers/dropcopy-server.js';
import { exchangePeerBinary } from '../../helpers/quickfix/binary.js';
import { startExchangePeer, type ExchangePeer } from '../../helpers/quickfix/peer.js';
import { threeWayCases, threeWayWorld, type ThreeWayWorld } from '../../helpers/three-way-cases.js';
import { engineSettings } from '../../reliability/support/engine.js';
import { startServerProcess, type ServerProcess } from '../../reliability/support/server.js';
import { removeTempDirs, tempDir } from '../../reliability/support/temp.js';

let store: TestStore;
let server: ServerProcess;
let peer: ExchangePeer;
let world: ThreeWayWorld;

beforeAll(async () => {
  store = await testStore();
  const settings = await engineSettings(store.url);
  const port = await freePort();
  server = await startServerProcess({ ...settings.env, ...dropCopyEnv('acceptor', port) }, 'three-way-quickfix');
  peer = await startExchangePeer({
    binary: exchangePeerBinary(),
    role: 'initiator',
    port,
    senderCompId: EXCHANGE_COMP_ID,
    targetCompId: ENGINE_COMP_ID,
    dir: path.join(await tempDir('exchange'), 'peer'),
    reconnectS: 1,
  });
  await peer.waitFor(/^logon$/, { timeoutMs: 60_000 });
  world = await threeWayWorld(store.sql, server.url, settings, async (execId, account, tags) => {
    await peer.fill(execId, account, tags);
  });
}, 180_000);

afterAll(async () => {
  world?.client.close();
  await peer?.stop();
  await server?.stop();
  await store?.close();
  await removeTempDirs();
});

describe('three-way reconciliation, the exchange QuickFIX/C++', () => {
  threeWayCases(() => world);
});
