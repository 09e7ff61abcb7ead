/**
 * The store driver survives a failed array-type lookup (patches/postgres+3.4.9.patch, repair 5): postgres.js looks
 * up the server's array types on each new connection before its first query, and when the store fails that
 * lookup (a cancelled statement, the FATAL of a restart, a reset connection, a restart that refuses the
 * reconnect) the connection's first query fails with a store fault, nothing is left unhandled, and the pool's
 * next connection looks the types up again, so arrays are parsed. A proxy in front of the test database fails
 * the lookup (./support/type-lookup-proxy.ts).
 * Unrepaired, the lookup's rejection is unhandled (Node ends a server on it), a lookup answered with an error
 * leaves the connection serving arrays as text, and a connection closed during it replays the dead session's
 * state onto the next one.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Sql } from '../../src/store/driver.js';
import { isStoreUnavailable } from '../../src/store/faults.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { typeLookupProxy, type LookupFault, type TypeLookupProxy } from './support/type-lookup-proxy.js';

let store: TestStore;
let proxy: TypeLookupProxy;
let sql: Sql | undefined;
const unhandled: unknown[] = [];
const record = (reason: unknown): void => void unhandled.push(reason);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  store = await testStore({ max: 1 });
  process.on('unhandledRejection', record);
});
afterEach(async () => {
  await sql?.end({ timeout: 1 });
  await proxy?.close();
});
afterAll(async () => {
  process.removeListener('unhandledRejection', record);
  await store?.close();
});

/** A pool of one connection through a new proxy in front of the test database, its first lookup to fail with `fault`. */
async function poolFailing(fault: LookupFault): Promise<Sql> {
  const upstream = new URL(store.url);
  proxy = await typeLookupProxy(Number(upstream.port));
  proxy.arm(fault);
  upstream.host = `127.0.0.1:${proxy.port}`;
  sql = connect(upstream.toString(), { max: 1, connectTimeoutMs: 2000 });
  return sql;
}

const FAULTS: Array<{ fault: LookupFault; what: string }> = [
  { fault: 'error', what: 'answered with an error (the statement cancelled) on a session that goes on' },
  { fault: 'terminated', what: 'ended by the FATAL of a fast shutdown (57P01)' },
  { fault: 'reset', what: 'cut by a reset connection' },
  { fault: 'restart', what: 'ended by a restart that refuses the reconnect' },
];

describe('a new connection whose array-type lookup fails', () => {
  for (const { fault, what } of FAULTS) {
    it(`${what}: the first query fails with a store fault, nothing is unhandled, the next connection parses arrays`, async () => {
      const pool = await poolFailing(fault);
      unhandled.length = 0;
      const err = await pool`select ${1}::int as one`.then(
        () => null,
        (e: unknown) => e,
      );
      if (fault === 'restart') await proxy.reopen();
      // Node reports an unhandled rejection once the microtasks of the failure have run.
      await sleep(100);
      expect(unhandled.map(String)).toEqual([]);
      expect(err, 'the first query answered').not.toBeNull();
      expect(isStoreUnavailable(err), String(err)).toBe(true);
      const [row] = await pool<Array<{ xs: number[] }>>`select array[1.5, 2.5]::float8[] as xs`;
      expect(row?.xs).toEqual([1.5, 2.5]);
      expect(proxy.connections).toBe(2);
    });
  }
});
