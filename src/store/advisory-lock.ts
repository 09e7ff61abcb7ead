/**
 * Session advisory locks: one process at a time for work that must not overlap across processes or replicas.
 *
 * `ADVISORY_LOCKS` is the one table of lock keys, so two features never pick the same number; add a key
 * here for each new use. A session lock belongs to a connection, so the work runs on one reserved
 * connection that holds the lock throughout and is handed to `fn`.
 *
 * On the embedded store every connection is the same PGlite session and these locks never block; the
 * embedded store runs one statement at a time anyway, but work done under a lock must still be written to
 * tolerate a concurrent run (e.g. re-check its precondition inside its transaction).
 */
import type postgres from 'postgres';
import { withoutStatementTimeout, type Sql } from './driver.js';

export const ADVISORY_LOCKS = {
  /** Applying migrations (`migrate.ts`). Arbitrary but fixed: every version of tradeseal must agree on it. */
  migrate: 7_265_000_001,
  /** A pipeline run (`src/signals/publish/run-lock.ts`): two runs never overlap. */
  pipeline: 7_265_000_002,
  /** Changing the regime broadcast in force (`src/store/regime-broadcasts.ts`), as a transaction-scoped lock. */
  regimeBroadcast: 7_265_000_003,
  /** Appending to the audit chain (`src/engine/audit/append.ts`), as a transaction-scoped lock. */
  auditChain: 7_265_000_004,
  /** Sequencing the transparency log (`src/engine/store/log-sequence.ts`), as a transaction-scoped lock. */
  transparencyLog: 7_265_000_005,
  /** The leader of the servers on one database (`leader.ts`), which alone runs the server's singletons. */
  leader: 7_265_000_006,
  /** Signing a checkpoint of the audit chain's head (`src/engine/audit/anchor.ts`), as a transaction-scoped lock. */
  auditAnchor: 7_265_000_007,
  /** Claiming a registration mail within the hourly limits (`src/signals/store/registration-mails.ts`), as a transaction-scoped lock. */
  registrationMail: 7_265_000_008,
  /**
   * The FIX drop-copy session (`src/engine/dropcopy/`): held for as long as one instance runs it, on the connection
   * that writes its fills, so losing the lock also loses the means to write. Not the leader's lock: the leader's jobs
   * tolerate a brief overlap, a FIX session does not.
   */
  dropCopySession: 7_265_000_009,
} as const;

/** Tries to take the session advisory lock `key` on `conn` without waiting; true when taken. */
export async function tryAdvisoryLock(conn: postgres.ReservedSql, key: number): Promise<boolean> {
  const [row] = await conn<Array<{ locked: boolean }>>`select pg_try_advisory_lock(${key}) as locked`;
  return row?.locked === true;
}

/**
 * Runs `fn` on a reserved connection holding the session advisory lock `key`, waiting for it as long as needed.
 * Work under such a lock (migrations) is long by nature, and so may be the wait for it while another process
 * holds it: both run without the pool's statement timeout.
 */
export async function withAdvisoryLock<T>(sql: Sql, key: number, fn: (conn: postgres.ReservedSql) => Promise<T>): Promise<T> {
  const conn = await sql.reserve();
  try {
    return await withoutStatementTimeout(conn, async () => {
      await conn`select pg_advisory_lock(${key})`;
      let result: T;
      try {
        result = await fn(conn);
      } catch (error) {
        // fn's error is the one that matters; if unlocking fails too, the connection is broken and the
        // server has released the lock with the session.
        await conn`select pg_advisory_unlock(${key})`.catch(() => {});
        throw error;
      }
      await conn`select pg_advisory_unlock(${key})`;
      return result;
    });
  } finally {
    conn.release();
  }
}

/**
 * Runs `fn` in a transaction on a reserved connection. A reserved handle has no `begin()` (postgres.js
 * only puts it on the pool), so this issues BEGIN/COMMIT itself, which postgres.js allows on a reserved
 * connection.
 */
export async function transactionOn<T>(conn: postgres.ReservedSql, fn: (conn: postgres.ReservedSql) => Promise<T>): Promise<T> {
  await conn.unsafe('begin');
  try {
    const result = await fn(conn);
    await conn.unsafe('commit');
    return result;
  } catch (error) {
    await conn.unsafe('rollback').catch(() => {});
    throw error;
  }
}
