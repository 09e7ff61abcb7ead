/** openStore with DATABASE_URL, and pingStore's answers: true, false after close, false on timeout. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { openStore, pingStore } from '../../src/store/db.js';
import { connect } from '../../src/store/driver.js';
import { testStore, type TestStore } from '../helpers/db.js';

let server: TestStore;
beforeAll(async () => {
  server = await testStore();
});
afterAll(async () => {
  await server?.close();
});

describe('openStore with DATABASE_URL', () => {
  it('connects to that server, sees its data, and close() ends the connections', async () => {
    await server.sql`insert into tradeseal_meta (key, value) values ('probe', ${server.sql.json({ from: 'test' })})`;
    const store = await openStore(configWith({ databaseUrl: server.url }), { max: 2 });
    expect(store.kind).toBe('postgres');
    expect(store.url).toBe(server.url);
    expect(await store.sql`select value from tradeseal_meta where key = 'probe'`).toEqual([{ value: { from: 'test' } }]);
    expect(await pingStore(store.sql)).toBe(true);

    await store.close();
    await store.close(); // idempotent
    expect(await pingStore(store.sql)).toBe(false);
  });

  it('fails on first query, not on open, when the server is unreachable; ping says false', async () => {
    const store = await openStore(configWith({ databaseUrl: 'postgres://nobody@127.0.0.1:1/none' }));
    expect(await pingStore(store.sql)).toBe(false);
    await expect(store.sql`select 1`).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await store.close();
  });
});

describe('pingStore', () => {
  it('answers false within its timeout when no connection is free, and never throws', async () => {
    // The pool's one connection is held, so the ping waits and must give up on its own. (Holding it, not
    // keeping it busy with pg_sleep: an in-process PGlite blocks the event loop, timers included, while a
    // query runs.)
    const sql = connect(server.url, { max: 1 });
    try {
      const held = await sql.reserve();
      const started = Date.now();
      expect(await pingStore(sql, 200)).toBe(false);
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      expect(Date.now() - started).toBeLessThan(1000);
      held.release();
      expect(await pingStore(sql, 2000)).toBe(true);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });
});
