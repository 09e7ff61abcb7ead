/**
 * Guarantee: the FIX drop copy speaks TLS with an exchange that is not us, both ends verified. `tradeseal serve`
 * (a child process on PostgreSQL) connects as initiator over TLS (FIX_DROPCOPY_TLS_CERT/KEY/CA) to a QuickFIX/C++
 * exchange on OpenSSL (test/helpers/quickfix/) that presents a server certificate and requires a client
 * certificate of the same CA; a fill sent over it is reconciled.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCa } from '../../helpers/certificates.js';
import { testStore, type TestStore } from '../../helpers/db.js';
import { appliedThrough, dropCopyEnv, ENGINE_COMP_ID, EXCHANGE_COMP_ID, executions, freePort } from '../../helpers/dropcopy-server.js';
import { exchangePeerBinary } from '../../helpers/quickfix/binary.js';
import { startExchangePeer, type ExchangePeer } from '../../helpers/quickfix/peer.js';
import { engineSettings, publishRegime, registerAgent } from '../../reliability/support/engine.js';
import { Client } from '../../reliability/support/http.js';
import { startServerProcess, type ServerProcess } from '../../reliability/support/server.js';
import { removeTempDirs, tempDir } from '../../reliability/support/temp.js';

/**
 * A server certificate with an RSA key issued by the CA `makeCa(dir, caName)` made: QuickFIX 1.15 loads RSA keys
 * only (with the P-256 keys of ../../helpers/certificates.ts it stops with "Unable to configure client
 * certificate").
 */
function rsaServerCertificate(dir: string, caName: string, file: string): { certPath: string; keyPath: string } {
  const home = path.join(dir, caName);
  const keyPath = path.join(dir, `${file}.key`);
  const certPath = path.join(dir, `${file}.pem`);
  const openssl = (args: string[]): void => {
    execFileSync('openssl', args, { cwd: home, stdio: ['ignore', 'ignore', 'pipe'] });
  };
  openssl(['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', `${file}.csr`, '-subj', '/CN=localhost']);
  openssl([
    'ca',
    '-config',
    'ca.cnf',
    '-batch',
    '-notext',
    '-cert',
    'ca.pem',
    '-keyfile',
    'ca.key',
    '-in',
    `${file}.csr`,
    '-out',
    certPath,
    '-extensions',
    'server',
    '-days',
    '30',
  ]);
  return { certPath, keyPath };
}

let store: TestStore;
let peer: ExchangePeer;
let server: ServerProcess;
let agentId: string;

beforeAll(async () => {
  store = await testStore();
  const dir = await tempDir('fix-tls');
  const ca = makeCa(dir, 'fix-ca');
  const exchangeCert = rsaServerCertificate(dir, 'fix-ca', 'exchange');
  const engineCert = ca.client('engine', ENGINE_COMP_ID);
  const port = await freePort();
  peer = await startExchangePeer({
    binary: exchangePeerBinary(),
    role: 'acceptor',
    port,
    senderCompId: EXCHANGE_COMP_ID,
    targetCompId: ENGINE_COMP_ID,
    dir: path.join(dir, 'peer'),
    tls: { cert: exchangeCert.certPath, key: exchangeCert.keyPath, ca: ca.certPath, verifyPeer: true },
  });
  const settings = await engineSettings(store.url);
  server = await startServerProcess(
    {
      ...settings.env,
      ...dropCopyEnv('initiator', port),
      FIX_DROPCOPY_TLS_CERT: engineCert.certPath,
      FIX_DROPCOPY_TLS_KEY: engineCert.keyPath,
      FIX_DROPCOPY_TLS_CA: ca.certPath,
    },
    'dropcopy-tls',
  );
  await peer.waitFor(/^logon$/, { timeoutMs: 60_000 });
  const client = new Client(server.url, 2);
  await publishRegime(client, settings.ownerToken);
  agentId = (await registerAgent(client, settings.ownerToken)).agentId;
  client.close();
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await peer?.stop();
  await store?.close();
  await removeTempDirs();
});

describe('a FIX drop copy over TLS', () => {
  it('logs on to a QuickFIX exchange that requires a client certificate, and reconciles a fill sent over it', async () => {
    const execId = `T-${randomUUID()}`;
    const seq = await peer.fill(execId, agentId);
    await appliedThrough(store.sql, seq);
    expect((await executions(store.sql, 'T-')).map((r) => [r.exec_id, r.outcome])).toEqual([[execId, 'orphan']]);
  });
});
