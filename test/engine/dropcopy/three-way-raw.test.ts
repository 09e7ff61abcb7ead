/**
 * Guarantee: the drop copy is a control, against an exchange spoken byte by byte from the FIX 4.4 specification
 * (test/helpers/raw-fix-peer.ts): `tradeseal serve` (a child process on PostgreSQL) runs the session as acceptor;
 * each fill is compared with its authorization and bind, a bind after the drop copy resolves the ORPHAN, and a
 * repeated ExecID is told by its trading day and its fields (the cases: test/helpers/three-way-cases.ts).
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { testStore, type TestStore } from '../../helpers/db.js';
import { dropCopyEnv, ENGINE_COMP_ID, EXCHANGE_COMP_ID, freePort } from '../../helpers/dropcopy-server.js';
import { connectWhenListening, fillBody, type RawFixPeer } from '../../helpers/raw-fix-peer.js';
import { threeWayCases, threeWayWorld, type ThreeWayWorld } from '../../helpers/three-way-cases.js';
import { engineSettings } from '../../reliability/support/engine.js';
import { startServerProcess, type ServerProcess } from '../../reliability/support/server.js';
import { removeTempDirs } from '../../reliability/support/temp.js';

let store: TestStore;
let server: ServerProcess;
let peer: RawFixPeer;
let world: ThreeWayWorld;

beforeAll(async () => {
  store = await testStore();
  const settings = await engineSettings(store.url);
  const port = await freePort();
  server = await startServerProcess({ ...settings.env, ...dropCopyEnv('acceptor', port) }, 'three-way-raw');
  peer = await connectWhenListening(port, EXCHANGE_COMP_ID, ENGINE_COMP_ID, 60_000);
  peer.send('A', [
    [98, 0],
    [108, 30],
    [141, 'Y'],
  ]);
  await peer.waitFor('the logon answer', (m) => m.tags.get(35) === 'A', 30_000);
  world = await threeWayWorld(store.sql, server.url, settings, async (execId, account, tags) => {
    const body = fillBody(execId, account).map(([t, v]): [number, string | number] => [t, tags[t] ?? v]);
    for (const [t, v] of Object.entries(tags)) if (!body.some(([tag]) => tag === Number(t))) body.push([Number(t), v]);
    peer.send('8', body);
  });
}, 120_000);

afterAll(async () => {
  world?.client.close();
  peer?.close();
  await server?.stop();
  await store?.close();
  await removeTempDirs();
});

describe('three-way reconciliation, the exchange written from the FIX 4.4 specification', () => {
  threeWayCases(() => world);
});
