/**
 * The drop-copy session's election and lifecycle (src/engine/dropcopy/runner.ts) against a real PostgreSQL: two
 * runners on one database, each with its own pool as two servers would have, race for the session; exactly one
 * holds it and listens; when it stops, the other takes it over with a higher epoch and carries on from the
 * persisted sequence numbers. The state row and the 'dropcopy.session' audit entries follow the session.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, type Config } from '../../../src/core/config.js';
import { startDropCopyRunner, type DropCopyRunner, type DropCopyState } from '../../../src/engine/dropcopy/runner.js';
import { ADVISORY_LOCKS } from '../../../src/store/advisory-lock.js';
import { connect, type Sql } from '../../../src/store/driver.js';
import { testStore, type TestStore } from '../../helpers/db.js';
import { freePort, waitUntil } from '../../helpers/dropcopy-server.js';
import { connectRawPeer, fillBody, type RawFixPeer } from '../../helpers/raw-fix-peer.js';

const US = 'DESK';
const EXCHANGE = 'XNAS';
const KEY = `FIX.4.4:${US}->${EXCHANGE}`;

let store: TestStore;
let config: Config;
let port: number;
const pools: Sql[] = [];
const errors: unknown[] = [];
const log = { info: () => {}, warn: () => {}, error: (obj: unknown) => void errors.push(obj) };

beforeAll(async () => {
  store = await testStore();
  port = await freePort();
  config = configWith({
    databaseUrl: store.url,
    logLevel: 'silent',
    dropCopy: { role: 'acceptor', host: '127.0.0.1', port, senderCompId: US, targetCompId: EXCHANGE, heartbeatS: 30, reconnectS: 1, tls: null },
  });
});
afterAll(async () => {
  for (const pool of pools) await pool.end({ timeout: 5 });
  await store?.close();
});

function runner(states: DropCopyState[]): DropCopyRunner {
  const sql = connect(store.url);
  pools.push(sql);
  return startDropCopyRunner({ sql, config, log, retryMs: 50, onState: (s) => states.push(s) });
}

async function logOn(): Promise<RawFixPeer> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      const p = await connectRawPeer(port, EXCHANGE, US);
      return p;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

const row = async () =>
  (
    await store.sql<Array<{ state: string; epoch: number; next_target_seq: number; next_sender_seq: number; owner: string }>>`
  select state, epoch::int as epoch, next_target_seq, next_sender_seq, owner from dropcopy_sessions where session_key = ${KEY}`
  )[0];
const lockHolders = async () =>
  (
    await store.sql<Array<{ n: number }>>`
  select count(*)::int as n from pg_locks where locktype = 'advisory' and granted
    and database = (select oid from pg_database where datname = current_database())
    and ((classid::bigint << 32) | objid::bigint) = ${ADVISORY_LOCKS.dropCopySession}`
  )[0]!.n;

describe('two runners on one database', () => {
  it('elect exactly one to run the session; the other takes over when it stops and continues its sequence numbers', async () => {
    const statesA: DropCopyState[] = [];
    const statesB: DropCopyState[] = [];
    const a = runner(statesA);
    const b = runner(statesB);
    let first: DropCopyRunner | undefined;
    let second: DropCopyRunner | undefined;
    try {
      await waitUntil(
        'one runner holding the session',
        async () => [a.holding, b.holding],
        ([x, y]) => x === true || y === true,
        20_000,
      );
      [first, second] = a.holding ? [a, b] : [b, a];
      const standby = first === a ? statesB : statesA;

      const p = await logOn();
      p.send('A', [
        [98, 0],
        [108, 30],
        [141, 'Y'],
      ]);
      await p.waitFor('the logon answer', (m) => m.tags.get(35) === 'A');
      const execId = `E-${randomUUID()}`;
      p.send('8', fillBody(execId, randomUUID()));
      await waitUntil(
        'the fill applied',
        () => store.sql`select 1 from dropcopy_executions where exec_id = ${execId}`,
        (r) => r.length === 1,
        10_000,
      );
      await waitUntil('the state row', row, (r) => r?.state === 'logged_on', 10_000);
      expect(first.holding && !second.holding).toBe(true);
      expect(standby).toEqual([]);
      expect(await lockHolders()).toBe(1);
      const before = (await row())!;
      expect(before.epoch).toBe(1);

      // The holder stops: it logs out (the peer confirms), records the session stopped and gives up the lock.
      const out = p.waitFor('the logout', (m) => m.tags.get(35) === '5');
      const stopping = first.stop();
      await out;
      p.send('5', [[58, 'bye']]);
      await stopping;
      await p.closed;
      await waitUntil(
        'the other runner holding the session',
        async () => second!.holding,
        (h) => h,
        20_000,
      );
      const after = await waitUntil('the new epoch', row, (r) => r?.epoch === 2, 10_000);
      // Everything received was applied (logon 1, fill 2, the logout confirmation 3); this side sent 2 messages.
      expect(after).toMatchObject({ next_target_seq: 4, next_sender_seq: 3 });

      // The exchange reconnects and carries on where it was, without a reset.
      const q = await logOn();
      q.seq = 4;
      q.send('A', [
        [98, 0],
        [108, 30],
      ]);
      const answer = await q.waitFor('the logon answer', (m) => m.tags.get(35) === 'A');
      // This side continues its own sequence: never a number it used before.
      expect(answer.tags.get(34)).toBe('3');
      const next = `E-${randomUUID()}`;
      q.send('8', fillBody(next, randomUUID()));
      await waitUntil(
        'the fill applied by the new holder',
        () => store.sql`select 1 from dropcopy_executions where exec_id = ${next}`,
        (r) => r.length === 1,
        10_000,
      );
      expect((await row())!.next_target_seq).toBe(6);
      const audits = await store.sql<Array<{ event: string }>>`
        select details::jsonb ->> 'event' as event from audit_log where action = 'dropcopy.session' order by seq`;
      expect(audits.map((x) => x.event).slice(0, 2)).toEqual(['logon', 'logout']);
      q.close();
    } finally {
      await a.stop();
      await b.stop();
    }
    expect((await row())!.state).toBe('stopped');
    expect(await lockHolders()).toBe(0);
    expect(errors).toEqual([]);
    errors.length = 0;
  }, 60_000);

  it('stop the session at once, without a logout, when the holder loses its lock connection; the session is then taken with a new epoch', async () => {
    const statesA: DropCopyState[] = [];
    const statesB: DropCopyState[] = [];
    const a = runner(statesA);
    const b = runner(statesB);
    try {
      await waitUntil(
        'one runner holding the session',
        async () => [a.holding, b.holding],
        ([x, y]) => x === true || y === true,
        20_000,
      );
      const epoch = (await row())!.epoch;
      const p = await logOn();
      p.seq = (await row())!.next_target_seq;
      p.send('A', [
        [98, 0],
        [108, 30],
      ]);
      await p.waitFor('the logon answer', (m) => m.tags.get(35) === 'A');
      await waitUntil('the state row', row, (r) => r?.state === 'logged_on', 10_000);

      // The store ends the holder's session (a failover of the database, a network cut): its lock is gone.
      const [holder] = await store.sql<Array<{ pid: number }>>`
        select pid from pg_locks where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())
          and ((classid::bigint << 32) | objid::bigint) = ${ADVISORY_LOCKS.dropCopySession}`;
      await store.sql`select pg_terminate_backend(${holder!.pid})`;
      // The old holder drops the FIX connection without a logout, and the other takes the session with a new epoch.
      await p.closed;
      expect(p.received.filter((m) => m.tags.get(35) === '5')).toEqual([]);
      // Either runner may take it (the one that lost it stands again at once, once its listener is closed).
      await waitUntil(
        'a runner holding the session again',
        async () => a.holding || b.holding,
        (h) => h,
        20_000,
      );
      await waitUntil('a new epoch', row, (r) => (r?.epoch ?? 0) > epoch, 10_000);
      const q = await logOn();
      q.seq = p.seq;
      q.send('A', [
        [98, 0],
        [108, 30],
      ]);
      await q.waitFor('the logon answer from the new holder', (m) => m.tags.get(35) === 'A');
      const execId = `E-${randomUUID()}`;
      q.send('8', fillBody(execId, randomUUID()));
      await waitUntil(
        'the fill applied by the new holder',
        () => store.sql`select 1 from dropcopy_executions where exec_id = ${execId}`,
        (r) => r.length === 1,
        10_000,
      );
      q.close();
    } finally {
      await a.stop();
      await b.stop();
    }
  }, 60_000);
});
