/**
 * The initiator's Logon cannot hang (src/engine/dropcopy/runner.ts, backoff.ts): against an exchange spoken by
 * hand over raw TCP that takes the connection and never answers the Logon, the session gives up after
 * FIX_DROPCOPY_LOGON_TIMEOUT_S, records and audits it, says in its state why and when it tries again, and
 * connects again with backoff; once the exchange answers, it logs on and the state says nothing more.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../../src/core/config.js';
import { startDropCopyRunner, type DropCopyRunner } from '../../../src/engine/dropcopy/runner.js';
import { configuredSession, readDropCopyStatus } from '../../../src/engine/dropcopy/status.js';
import { connect, type Sql } from '../../../src/store/driver.js';
import { testStore, type TestStore } from '../../helpers/db.js';
import { waitUntil } from '../../helpers/dropcopy-server.js';
import { rawPeerOn, type RawFixPeer } from '../../helpers/raw-fix-peer.js';

const US = 'DESK';
const EXCHANGE = 'XNAS';

let store: TestStore;
let pool: Sql;
let exchange: net.Server;
let runner: DropCopyRunner | undefined;
/** Each connection the engine made, as the exchange's end of it. */
const calls: RawFixPeer[] = [];
let answering = false;

beforeAll(async () => {
  store = await testStore();
  pool = connect(store.url);
  exchange = net.createServer((socket) => {
    const p = rawPeerOn(socket, EXCHANGE, US);
    calls.push(p);
    void p
      .waitFor("the engine's Logon", (m) => m.tags.get(35) === 'A', 30_000)
      .then(
        () => {
          if (answering)
            p.send('A', [
              [98, 0],
              [108, 30],
            ]);
        },
        () => {},
      );
  });
  await new Promise<void>((resolve) => exchange.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await runner?.stop();
  for (const p of calls) p.close();
  await new Promise<void>((resolve) => exchange.close(() => resolve()));
  await pool?.end({ timeout: 5 });
  await store?.close();
});

describe('an exchange that never answers the Logon', () => {
  it('is given up after the Logon timeout, recorded and audited, and called again with backoff; the state says why and when', async () => {
    const port = (exchange.address() as net.AddressInfo).port;
    const config = configWith({
      databaseUrl: store.url,
      logLevel: 'silent',
      dropCopy: {
        role: 'initiator',
        host: '127.0.0.1',
        port,
        senderCompId: US,
        targetCompId: EXCHANGE,
        heartbeatS: 30,
        reconnectS: 1,
        tls: null,
        logonTimeoutS: 1,
        reconnectMaxS: 2,
      },
    });
    runner = startDropCopyRunner({ sql: pool, config, log: { info: () => {}, warn: () => {}, error: () => {} }, retryMs: 50 });

    await waitUntil(
      'a second call',
      async () => calls.length,
      (n) => n >= 2,
      20_000,
    );
    await calls[0]!.closed;
    const status = await waitUntil(
      'the state saying why',
      () => readDropCopyStatus(store.sql, configuredSession(config), new Date()),
      (s) => /attempt \d+ failed/.test(s.summary),
      10_000,
    );
    expect(status.summary).toMatch(
      /^FIX\.4\.4:DESK->XNAS \(initiator\) (disconnected|connecting) on .+: attempt \d+ (failed \(the exchange did not answer the Logon within 1 s\); next attempt in \d+\.\d s, at \d{4}-\d\d-\d\dT.+Z|since the last logon)$/,
    );
    const rows = await waitUntil(
      'the refused Logon recorded',
      () => store.sql<Array<{ reason: string; answer: string; action: string | null }>>`
      select r.reason, r.answer, a.action from dropcopy_rejects r left join audit_log a on a.id = r.audit_entry_id
      where r.reason like '%did not answer the Logon%'`,
      (r) => r.length >= 1,
      10_000,
    );
    expect(rows[0]).toMatchObject({ answer: 'none', action: 'dropcopy.reject' });
    expect(rows[0]!.reason).toMatch(/^Logon refused \(127\.0\.0\.1:\d+\): the exchange did not answer the Logon within 1 s$/);

    // The exchange answers from now on: the next call logs on, and the state has nothing more to say.
    answering = true;
    const logged = await waitUntil(
      'logged on',
      () => readDropCopyStatus(store.sql, configuredSession(config), new Date()),
      (s) => s.state === 'logged_on',
      20_000,
    );
    expect(logged.summary).toMatch(/^FIX\.4\.4:DESK->XNAS \(initiator\) logged_on on [^:]+:\d+$/);
  }, 60_000);
});
