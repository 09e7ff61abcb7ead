/**
 * Leader election on one database: of the processes that elect on the same key, one at a time leads.
 *
 * The leader is whoever holds the session advisory lock `key` (ADVISORY_LOCKS.leader for the server's
 * singletons). A session lock belongs to a connection, so the leader keeps one reserved connection for as
 * long as it leads and checks it every `retryMs`; the others try to take the lock every `retryMs` on a
 * connection they reserve only for the attempt. When the leader's process dies, its connection closes and
 * Postgres releases the lock with the session: another elector takes it at its next attempt, within
 * `retryMs`. When the leader's connection dies under a live process (the store restarted, the network
 * broke), its next check fails: it stops leading (`onDeposed`) and tries again like the others.
 *
 * Between losing the connection and noticing it, the old leader may still run its jobs while a new one
 * starts: jobs run under an election must tolerate a brief overlap (the server's do: see singletons.ts).
 *
 * Not for the embedded store: every connection there is the one PGlite session, where every attempt
 * succeeds; one process serves it anyway.
 */
import type postgres from 'postgres';
import type { Sql } from './driver.js';
import { tryAdvisoryLock } from './advisory-lock.js';

/** How often a follower tries to take the lead, and the leader checks its connection. */
export const LEADER_RETRY_MS = 1000;

export interface LeaderOptions {
  retryMs?: number;
  /** Called when this elector becomes the leader; its failure is logged and the lead is kept. */
  onElected: () => void | Promise<void>;
  /** Called when this elector stops leading (its connection died, or `stop()`), after `onElected`. */
  onDeposed: () => void | Promise<void>;
  log?: (msg: string, err?: unknown) => void;
}

export interface LeaderElection {
  /** True while this elector leads. */
  readonly leading: boolean;
  /** Stops electing; a leader runs `onDeposed`, then gives up the lock and its connection. */
  stop(): Promise<void>;
}

export function electLeader(sql: Sql, key: number, options: LeaderOptions): LeaderElection {
  const retryMs = options.retryMs ?? LEADER_RETRY_MS;
  const log = options.log ?? (() => {});
  let conn: postgres.ReservedSql | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();

  /** Stops leading: the jobs stop first, then the lock goes (unlocked when the connection still answers). */
  const depose = async (unlock: boolean): Promise<void> => {
    const held = conn;
    conn = null;
    try {
      await options.onDeposed();
    } catch (err) {
      log("leader election: stopping the leader's jobs failed", err);
    }
    if (held && unlock) await held`select pg_advisory_unlock(${key})`.catch(() => {});
    held?.release();
  };

  const attempt = async (): Promise<void> => {
    const candidate = await sql.reserve();
    let taken = false;
    try {
      taken = await tryAdvisoryLock(candidate, key);
    } finally {
      if (!taken) candidate.release();
    }
    if (!taken) return;
    conn = candidate;
    try {
      await options.onElected();
    } catch (err) {
      log("leader election: starting the leader's jobs failed", err);
    }
  };

  const check = async (held: postgres.ReservedSql): Promise<void> => {
    try {
      await held`select 1`;
    } catch (err) {
      log("leader election: the leader's connection was lost; its jobs stop and it stands again", err);
      await depose(false);
      if (!stopped) await attempt();
    }
  };

  const tick = (): void => {
    timer = undefined;
    round = (conn ? check(conn) : attempt())
      .catch((err: unknown) => log('leader election: an attempt failed; retrying', err))
      .finally(() => {
        if (!stopped) {
          timer = setTimeout(tick, retryMs);
          timer.unref();
        }
      });
  };
  tick();

  return {
    get leading() {
      return conn !== null;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      await round;
      if (conn) await depose(true);
    },
  };
}
