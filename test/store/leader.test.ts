/**
 * Leader election on real Postgres (src/store/leader.ts): two electors with pools of their own on one
 * database, as two processes would be. Exactly one leads; when it stops, or its connection is killed under
 * it, the other (or itself, standing again) leads within a retry, and never both at once for long.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADVISORY_LOCKS } from '../../src/store/advisory-lock.js';
import { connect, type Sql } from '../../src/store/driver.js';
import { electLeader, type LeaderElection } from '../../src/store/leader.js';
import { testDbInfo, testStore, type TestStore } from '../helpers/db.js';

const RETRY_MS = 100;
const KEY = ADVISORY_LOCKS.leader;

interface Elector {
  sql: Sql;
  election: LeaderElection;
  /** Every change of leadership this elector was told of, in order. */
  events: Array<'elected' | 'deposed'>;
}

let store: TestStore;
const pools: Sql[] = [];

const elector = (): Elector => {
  const sql = connect(store.url, { max: 3 });
  pools.push(sql);
  const events: Elector['events'] = [];
  const election = electLeader(sql, KEY, { retryMs: RETRY_MS, onElected: () => void events.push('elected'), onDeposed: () => void events.push('deposed') });
  return { sql, election, events };
};

const until = async (what: string, ok: () => boolean | Promise<boolean>, ms = 5000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** The backends holding the leader's lock on this database. */
const holders = async (): Promise<number[]> => {
  const rows = await store.sql<Array<{ pid: number }>>`
    select pid from pg_locks
    where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())
      and ((classid::bigint << 32) | objid::bigint) = ${KEY}`;
  return rows.map((r) => r.pid);
};

const postgresOnly = testDbInfo().mode === 'postgres';

beforeAll(async () => {
  if (postgresOnly) store = await testStore();
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end({ timeout: 1 })));
  await store?.close();
});

describe.runIf(postgresOnly)('leader election', () => {
  it('of two electors exactly one leads; when it stops, the other takes over within a retry', async () => {
    const a = elector();
    const b = elector();
    await until('one leads', () => a.election.leading || b.election.leading);
    // Several retries later, still exactly one, and the lock has exactly one holder.
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS * 4));
    expect([a.election.leading, b.election.leading].filter(Boolean)).toHaveLength(1);
    expect(await holders()).toHaveLength(1);
    const [leader, follower] = a.election.leading ? [a, b] : [b, a];
    expect(leader.events).toEqual(['elected']);
    expect(follower.events).toEqual([]);

    const stoppedAt = Date.now();
    await leader.election.stop();
    expect(leader.events).toEqual(['elected', 'deposed']);
    expect(leader.election.leading).toBe(false);
    await until('the follower leads', () => follower.election.leading);
    expect(Date.now() - stoppedAt).toBeLessThan(RETRY_MS * 10);
    expect(follower.events).toEqual(['elected']);
    expect(await holders()).toHaveLength(1);
    await follower.election.stop();
    expect(await holders()).toEqual([]);
  });

  it('a leader whose connection dies stops leading, and one elector leads again within a few retries', async () => {
    const a = elector();
    const b = elector();
    await until('one leads', () => a.election.leading || b.election.leading);
    const [leader, follower] = a.election.leading ? [a, b] : [b, a];
    const [pid] = await holders();
    // The store ends the leader's session, as a store restart or a broken network would.
    await store.sql`select pg_terminate_backend(${pid!})`;
    await until('the old leader notices', () => leader.events.includes('deposed'));
    await until('a new leadership', async () => (await holders()).length === 1 && (await holders())[0] !== pid && (a.election.leading || b.election.leading));
    expect([a.election.leading, b.election.leading].filter(Boolean)).toHaveLength(1);
    // Whoever leads now was told so last; the other was told it stopped (or never led).
    for (const e of [leader, follower]) expect(e.events.at(-1) ?? 'deposed').toBe(e.election.leading ? 'elected' : 'deposed');
    await a.election.stop();
    await b.election.stop();
    expect(await holders()).toEqual([]);
  });

  it('a process that dies without stopping (its pool ended) hands over to the other', async () => {
    const a = elector();
    await until('a leads', () => a.election.leading);
    const b = elector();
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS * 3));
    expect(b.election.leading).toBe(false);
    // The connections close as a killed process's would: no unlock, the server releases the session's lock.
    await a.sql.end({ timeout: 0 });
    await until('b leads', () => b.election.leading);
    await b.election.stop();
    await a.election.stop();
  });
});
