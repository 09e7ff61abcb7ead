/**
 * The FIX drop-copy session on a thread of its own (src/engine/dropcopy/thread.ts), as `tradeseal serve` runs
 * it with a PostgreSQL server: fills from a real FIX peer (the demo's exchange, jspurefix over loopback) are
 * reconciled by the thread; its log records, its metrics and whether it holds the session reach the server's
 * thread; a thread that dies is replaced and the session resumes; a stop logs out, records the session stopped
 * and gives the lock up.
 */
import { randomUUID } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../../src/core/config.js';
import { streamFills } from '../../../src/demo/exchange.js';
import { startDropCopyThread } from '../../../src/engine/dropcopy/thread.js';
import type { DropCopyRunner } from '../../../src/engine/dropcopy/runner.js';
import { ServerMetrics } from '../../../src/http/metrics.js';
import { ADVISORY_LOCKS } from '../../../src/store/advisory-lock.js';
import { testStore, type TestStore } from '../../helpers/db.js';
import { freePort, waitUntil } from '../../helpers/dropcopy-server.js';

const ENGINE = 'TRADESEAL-T';
const EXCHANGE = 'EXCH-T';
const SESSION = `FIX.4.4:${ENGINE}->${EXCHANGE}`;

let store: TestStore;
let port: number;
let metrics: ServerMetrics;
let runner: DropCopyRunner;
const workers: Worker[] = [];
const logged: Array<{ level: string; msg: string; err?: unknown }> = [];

const log = {
  info: (msg: string) => void logged.push({ level: 'info', msg }),
  warn: (obj: unknown, msg?: string) => void logged.push({ level: 'warn', msg: msg ?? String(obj), err: (obj as { err?: unknown })?.err }),
  error: (obj: unknown, msg?: string) => void logged.push({ level: 'error', msg: msg ?? String(obj), err: (obj as { err?: unknown })?.err }),
};

const fill = () => ({
  exchange_tx_id: `THREAD-${randomUUID()}`,
  asset: 'TSLA',
  side: 'Long' as const,
  quantity: 40,
  price: 250,
  agent_id: randomUUID(),
  execution_time: '2026-03-02T14:30:00.412Z',
});

async function send(n: number): Promise<string[]> {
  const fills = Array.from({ length: n }, fill);
  await streamFills({ host: '127.0.0.1', port, senderCompId: EXCHANGE, targetCompId: ENGINE, timeoutMs: 20_000 }, fills);
  return fills.map((f) => f.exchange_tx_id);
}

async function outcomes(ids: string[]): Promise<string[]> {
  const rows = await store.sql<Array<{ outcome: string }>>`select outcome from dropcopy_executions where exec_id = any(${ids}) order by exec_id`;
  return rows.map((r) => r.outcome);
}

const counter = async (name: 'dropCopyFills', outcome: string): Promise<number> =>
  (await metrics[name].get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;

/** Holders of the session's lock in this database (pg_locks is the cluster's: other tests' databases run sessions of their own). */
async function sessionLocks(): Promise<number> {
  const [row] = await store.sql<Array<{ n: number }>>`select count(*)::int as n from pg_locks where locktype = 'advisory' and granted
    and database = (select oid from pg_database where datname = current_database()) and ((classid::bigint << 32) | objid::bigint) = ${ADVISORY_LOCKS.dropCopySession}`;
  return row!.n;
}

beforeAll(async () => {
  store = await testStore();
  port = await freePort();
  metrics = new ServerMetrics(store.sql);
  const config = configWith({
    databaseUrl: store.url,
    logLevel: 'silent',
    dropCopy: { role: 'acceptor', host: '127.0.0.1', port, senderCompId: ENGINE, targetCompId: EXCHANGE, heartbeatS: 30, reconnectS: 1, tls: null },
  });
  runner = startDropCopyThread({ url: store.url, config, log, metrics, retryMs: 100, onWorker: (w) => workers.push(w) });
  await waitUntil(
    'the thread holds the session and listens',
    async () => ({ holding: runner.holding, address: runner.address }),
    (s) => s.holding && s.address?.port === port,
  );
}, 60_000);

afterAll(async () => {
  await runner?.stop();
  await store?.close();
});

describe('the FIX drop-copy session on its own thread', () => {
  it("reconciles fills from a FIX peer, and its log and metrics reach the server's thread", async () => {
    // A fill whose Account names no agent is refused (35=j): counted by answer.
    await streamFills({ host: '127.0.0.1', port, senderCompId: EXCHANGE, targetCompId: ENGINE, timeoutMs: 20_000 }, [{ ...fill(), agent_id: 'ACCT-7' }]);
    const ids = await send(3);
    expect(
      await waitUntil(
        'the fills reconciled',
        () => outcomes(ids),
        (o) => o.length === 3,
        20_000,
      ),
    ).toEqual(['orphan', 'orphan', 'orphan']);
    expect(logged).toContainEqual({
      level: 'info',
      msg: expect.stringMatching(new RegExp(`runs the FIX drop-copy session ${SESSION} \\(epoch \\d+, acceptor on 127\\.0\\.0\\.1:${port}\\)`)),
    });
    await waitUntil(
      'the fills counted',
      () => counter('dropCopyFills', 'orphan'),
      (n) => n >= 3,
    );
    expect(await counter('dropCopyFills', 'orphan')).toBe(3);
    const delays = (await metrics.dropCopyDelay.get()).values.find((v) => v.metricName === 'tradeseal_dropcopy_apply_delay_seconds_count');
    expect(delays?.value).toBe(3);
    const refused = (await metrics.dropCopyRejects.get()).values.find((v) => v.labels.answer === 'business_reject');
    expect(refused?.value).toBe(1);
    const named = await store.sql<Array<{ n: number }>>`select count(*)::int as n from pg_stat_activity where application_name = 'tradeseal-dropcopy'`;
    expect(named[0]!.n).toBeGreaterThanOrEqual(1);
    expect(workers).toHaveLength(1);
    expect(workers[0]!.threadId).toBeGreaterThan(0);
  }, 60_000);

  it('stands again on a new thread when its thread dies, and resumes the session', async () => {
    const before = workers.length;
    await workers[before - 1]!.terminate();
    await waitUntil(
      'a new thread holds the session',
      async () => ({ threads: workers.length, holding: runner.holding }),
      (s) => s.threads === before + 1 && s.holding,
      20_000,
    );
    expect(logged.some((l) => l.level === 'error' && /the session's thread ended \(exit code 1\); a new one stands in 100 ms/.test(l.msg))).toBe(true);
    const [session] = await store.sql<Array<{ epoch: string; state: string }>>`select epoch::text, state from dropcopy_sessions where session_key = ${SESSION}`;
    expect(Number(session!.epoch)).toBeGreaterThanOrEqual(2);
    await waitUntil(
      'the new thread listens',
      async () => runner.address?.port,
      (p) => p === port,
    );
    const ids = await send(2);
    expect(
      await waitUntil(
        'the fills reconciled',
        () => outcomes(ids),
        (o) => o.length === 2,
        20_000,
      ),
    ).toEqual(['orphan', 'orphan']);
    await waitUntil(
      'the fills counted',
      () => counter('dropCopyFills', 'orphan'),
      (n) => n >= 5,
    );
  }, 60_000);

  it('stops: logs out, records the session stopped, gives the lock up and ends its thread', async () => {
    const last = workers[workers.length - 1]!;
    expect(await sessionLocks()).toBe(1);
    const exited = new Promise<number>((resolve) => last.once('exit', resolve));
    await runner.stop();
    await exited;
    expect(runner.holding).toBe(false);
    const [session] = await store.sql<Array<{ state: string }>>`select state from dropcopy_sessions where session_key = ${SESSION}`;
    expect(session!.state).toBe('stopped');
    expect(await sessionLocks()).toBe(0);
    expect(logged.filter((l) => l.level === 'error' && /did not stop/.test(l.msg))).toEqual([]);
  }, 60_000);
});
