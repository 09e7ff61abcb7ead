/**
 * The store driver survives a server session that ends under it (scripts/patch-postgres.js repairs postgres.js
 * 3.4.9 here): a transaction or a reserved connection whose backend is terminated mid-statement fails with a
 * store fault instead of ending the process with an uncaught TypeError, and the pool goes on answering.
 * Unrepaired, the ROLLBACK that `begin()` sends on the dead connection throws from a timer and this test file's
 * process dies.
 */
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
    const failure = tx.then(() => null, (err: unknown) => err);
    while (pid === null) await sleep(20);
    await terminate(pid);
    const err = await failure;
    expect(err, String(err)).not.toBeNull();
    expect(isStoreUnavailable(err), `${(err as { code?: string }).code}: ${String(err)}`).toBe(true);
    // The driver's ROLLBACK on the dead connection would throw on the next ticks: give them time to run.
    await sleep(200);
    await poolAnswers();
  }, 60_000);

  it('fails a reserved connection\'s next query, and its release leaves the pool whole', async () => {
    const conn = await sql.reserve();
    const [row] = await conn<Array<{ pid: number }>>`select pg_backend_pid() as pid`;
    await terminate(row!.pid);
    await sleep(200);
    const err = await conn`select 1 as one`.then(() => null, (e: unknown) => e);
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
      const during = await Promise.all(Array.from({ length: 4 }, () => sql`select 1`.then(() => null, (e: unknown) => e)));
      for (const err of during) expect(isStoreUnavailable(err), String(err)).toBe(true);
    }
    await store.cluster.resume();
    const started = Date.now();
    await poolAnswers();
    // The driver's own backoff grew with every failed attempt to 10-20 s before it connected again.
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 90_000);
});
