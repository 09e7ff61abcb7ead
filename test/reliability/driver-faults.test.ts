/**
 * The store driver survives a server session that ends under it (patches/postgres+3.4.9.patch repairs postgres.js
 * 3.4.9 here): a transaction or a reserved connection whose backend is terminated mid-statement fails with a
 * store fault instead of ending the process with an uncaught TypeError, and the pool goes on answering.
 * Unrepaired, the ROLLBACK that `begin()` sends on the dead connection throws from a timer and this test file's
 * process dies.
 * A reserve() that waits for a connection settles when the connection it waits for closes and opens again
 * (repair 6; unrepaired it never settled, and a leader election waiting on it never stopped), and ending a pool
 * cancels a reconnection it had scheduled (repair 7; unrepaired the connection opened after the end and kept
 * the process alive).
 */
import net from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Sql } from '../../src/store/driver.js';
import { isStoreUnavailable } from '../../src/store/faults.js';
import { privateStore, type PrivateStore } from './support/cluster.js';

let store: PrivateStore;
let sql: Sql;

beforeAll(async () => {
  store = await privateStore();
  sql = connect(store.url, { max: 2, connectTimeoutMs: 2000 });
}, 120_000);
afterAll(async () => {
  await sql?.end({ timeout: 1 });
  await store?.close();
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Terminates the server session `pid` from the test's own connection. */
async function terminate(pid: number): Promise<void> {
  await store.admin`select pg_terminate_backend(${pid})`;
}

/** What `promise` settled to within `ms`, or 'pending'. */
const within = <T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> => Promise.race([promise, sleep(ms).then(() => 'pending' as const)]);

/** Every connection of the pool answers again (as many queries at once as it has connections, twice over). */
async function poolAnswers(): Promise<void> {
  const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => sql<Array<{ n: number }>>`select ${i}::int as n`));
  expect(answers.map((rows) => rows[0]?.n)).toEqual([0, 1, 2, 3]);
}

describe('a server session that ends under the driver', () => {
  it('fails a transaction mid-statement with a store fault, and the pool answers the next queries', async () => {
    let pid: number | null = null;
    const tx = sql.begin(async (t) => {
      const [row] = await t<Array<{ pid: number }>>`select pg_backend_pid() as pid`;
      pid = row?.pid ?? null;
      await t`select pg_sleep(30)`;
    });
    const failure = tx.then(
      () => null,
      (err: unknown) => err,
    );
    while (pid === null) await sleep(20);
    await terminate(pid);
    const err = await failure;
    expect(err, String(err)).not.toBeNull();
    expect(isStoreUnavailable(err), `${(err as { code?: string }).code}: ${String(err)}`).toBe(true);
    // The driver's ROLLBACK on the dead connection would throw on the next ticks: give them time to run.
    await sleep(200);
    await poolAnswers();
  }, 60_000);

  it("fails a reserved connection's next query, and its release leaves the pool whole", async () => {
    const conn = await sql.reserve();
    const [row] = await conn<Array<{ pid: number }>>`select pg_backend_pid() as pid`;
    await terminate(row!.pid);
    await sleep(200);
    const err = await conn`select 1 as one`.then(
      () => null,
      (e: unknown) => e,
    );
    expect(isStoreUnavailable(err), String(err)).toBe(true);
    conn.release();
    await sleep(200);
    for (let round = 0; round < 3; round++) await poolAnswers();
  }, 60_000);

  it('fails statements on every connection when the server restarts, and reconnects as soon as it is back', async () => {
    await poolAnswers();
    await store.cluster.halt('fast');
    // A second of requests against the stopped server: each fails at once, with a store fault.
    const until = Date.now() + 1000;
    while (Date.now() < until) {
      const during = await Promise.all(
        Array.from({ length: 4 }, () =>
          sql`select 1`.then(
            () => null,
            (e: unknown) => e,
          ),
        ),
      );
      for (const err of during) expect(isStoreUnavailable(err), String(err)).toBe(true);
    }
    await store.cluster.resume();
    const started = Date.now();
    await poolAnswers();
    // The driver's own backoff grew with every failed attempt to 10-20 s before it connected again.
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 90_000);

  it('settles a reserve waiting for a busy pool when the connection it waits for is closed and opened again', async () => {
    const one = connect(store.url, { max: 1, connectTimeoutMs: 2000 });
    try {
      const [row] = await one<Array<{ pid: number }>>`select pg_backend_pid() as pid`;
      const busy = one`select pg_sleep(30)`.then(
        () => null,
        (e: unknown) => e,
      );
      await sleep(100);
      const reserved = one.reserve().then(
        (conn) => (conn.release(), 'reserved'),
        (e: unknown) => `rejected: ${String(e)}`,
      );
      await sleep(100);
      await terminate(row!.pid);
      expect(isStoreUnavailable(await busy)).toBe(true);
      expect(await within(reserved, 5000)).toBe('reserved');
      const [after] = await one<Array<{ n: number }>>`select 1::int as n`;
      expect(after?.n).toBe(1);
    } finally {
      await one.end({ timeout: 1 });
    }
  }, 30_000);

  it('does not open a connection again once the pool has ended', async () => {
    // A port where nothing listens yet: the pool's first attempt is refused and the next one waits its backoff.
    const server = net.createServer((socket) => accepted.push(socket));
    const accepted: net.Socket[] = [];
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const pool = postgres(`postgres://postgres@127.0.0.1:${port}/tradeseal`, { max: 1, backoff: () => 0.5, onnotice: () => {} });
    try {
      const refused = await pool`select 1`.then(
        () => null,
        (e: { code?: string }) => e.code,
      );
      expect(refused).toBe('ECONNREFUSED');
      await sleep(50); // the refused socket has closed: the next query schedules a reconnection 0.5 s after it
      const waiting = pool`select 1`.then(
        () => null,
        (e: { code?: string }) => e.code,
      );
      await pool.end({ timeout: 0 });
      expect(await waiting).toBe('CONNECTION_DESTROYED');
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
      await sleep(1000);
      expect(accepted.length, 'connections opened after the pool ended').toBe(0);
    } finally {
      for (const socket of accepted) socket.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 30_000);
});
