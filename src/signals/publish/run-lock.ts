/**
 * Two pipeline runs never overlap, and a run that died never blocks the next one: liveness comes from the
 * holder of the lock, never from a timestamp.
 *
 * On a Postgres server a session advisory lock decides: the server releases it when the holder's session
 * ends, so whoever holds it knows that every `running` record left in `model_runs` is abandoned. The embedded
 * store is one session shared by every connection, where advisory locks never block; there a `running`
 * record is live while its process is: the record names its holder's pid and host, the embedded store is
 * reached on loopback only (same host), and a record naming this very process is live only if this process
 * is running that run (a pid can be reused).
 * Abandoned records are marked `failed` once the lock is held.
 */
import os from 'node:os';
import type postgres from 'postgres';
import { ADVISORY_LOCKS, tryAdvisoryLock } from '../../store/advisory-lock.js';
import { withoutStatementTimeout, type Sql } from '../../store/driver.js';
import { isAlive } from '../../store/embedded-owner.js';
import { TradesealError } from '../../core/errors.js';
import type { PublishPlan } from '../../../pipeline/publish/plan.js';
import type { RunRecord } from '../../../pipeline/publish/types.js';

const busy = (detail: string): TradesealError =>
  new TradesealError('pipeline_running', detail, { hint: 'wait for it to finish (`tradeseal pipeline status`), then run again' });

/** Runs this process is executing now (their records are live whatever the lock says). */
const runningHere = new Set<string>();

/**
 * Whether a session advisory lock keeps other connections out: true on a Postgres server, false on the
 * embedded store (PGlite, which names itself in `version()`), where every connection is the one session.
 */
async function locksExcludeOthers(conn: postgres.ReservedSql): Promise<boolean> {
  const [row] = await conn<Array<{ embedded: boolean }>>`select version() like '%PGlite%' as embedded`;
  return row?.embedded !== true;
}

interface RunningRow {
  run_id: string;
  started_at: Date;
  holder_pid: number | null;
  holder_host: string | null;
}

/** Whether the process that wrote a `running` record still runs it (embedded store: see the module comment). */
function holderAlive(r: RunningRow): boolean {
  if (r.holder_pid === null || r.holder_host !== os.hostname()) return false;
  if (r.holder_pid === process.pid) return runningHere.has(r.run_id);
  return isAlive(r.holder_pid);
}

/** Takes the run lock, records `run` as running with its holder, runs `fn`, and marks the run failed if `fn` throws. */
export async function withRunLock<T>(sql: Sql, run: RunRecord, fn: (conn: postgres.ReservedSql) => Promise<T>): Promise<T> {
  const conn = await sql.reserve();
  let locked = false;
  try {
    locked = await tryAdvisoryLock(conn, ADVISORY_LOCKS.pipeline);
    if (!locked) throw busy('another pipeline run holds the lock');
    const exclusive = await locksExcludeOthers(conn);
    const running = await conn<RunningRow[]>`
      select run_id, started_at, holder_pid, holder_host from model_runs where status = 'running' order by started_at desc`;
    const live = exclusive ? undefined : running.find(holderAlive);
    if (live) throw busy(`pipeline run ${live.run_id} (process ${live.holder_pid}) has been running since ${live.started_at.toISOString()}`);
    if (running.length > 0) {
      await conn`update model_runs set status = 'failed', error = 'abandoned: the process ended before publishing', finished_at = clock_timestamp()
                 where status = 'running'`;
    }
    await conn`
      insert into model_runs (run_id, started_at, status, as_of, data_vintage, model_version, seed, parameters, holder_pid, holder_host)
      values (${run.run_id}, ${run.started_at}, 'running', ${run.as_of}, ${conn.json(run.data_vintage as never)}, ${run.model_version},
              ${run.seed}, ${conn.json(run.parameters as never)}, ${process.pid}, ${os.hostname()})`;
    runningHere.add(run.run_id);
    try {
      // A run's publication is one long transaction on this connection: the server's statement timeout
      // (for requests) must not cut it when a run shares the server's store handle.
      return await withoutStatementTimeout(conn, () => fn(conn));
    } catch (err) {
      await conn`update model_runs set status = 'failed', error = ${`${(err as { code?: string }).code ?? (err as Error).name}: ${(err as Error).message}`.slice(0, 2000)}, finished_at = clock_timestamp()
                 where run_id = ${run.run_id} and status = 'running'`.catch(() => {});
      throw err;
    } finally {
      runningHere.delete(run.run_id);
    }
  } finally {
    if (locked) await conn`select pg_advisory_unlock(${ADVISORY_LOCKS.pipeline})`.catch(() => {});
    conn.release();
  }
}

export interface RunSummaryRow {
  run_id: string;
  started_at: Date;
  finished_at: Date | null;
  status: string;
  as_of: string | null;
  model_version: string;
  seed: number;
  days: number | null;
  first_day: string | null;
  last_day: string | null;
  pca_fit_date: string | null;
  hmm_fit_date: string | null;
  timings_ms: Record<string, number> | null;
  error: string | null;
  /** What the publication did to the history (days added, rewritten, kept, removed). */
  publish_plan: PublishPlan | null;
  /** Who confirmed a publication that rewrote or removed published days. */
  confirmed_by: string | null;
}

export async function recentRuns(sql: Sql, limit: number): Promise<RunSummaryRow[]> {
  return sql<RunSummaryRow[]>`
    select run_id, started_at, finished_at, status, as_of::text as as_of, model_version, seed, days, first_day::text as first_day,
           last_day::text as last_day, pca_fit_date::text as pca_fit_date, hmm_fit_date::text as hmm_fit_date, timings_ms, error,
           publish_plan, confirmed_by
    from model_runs order by started_at desc limit ${limit}`;
}
