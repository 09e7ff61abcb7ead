/**
 * Two pipeline runs never overlap. On a Postgres server a session advisory lock decides (released by the
 * server if the process dies); the embedded store is a single session where advisory locks never block, so a
 * `running` run record younger than `STALE_RUN_MS` also stops a second run. A run that died leaves a
 * `running` record: the next run marks it `failed` (abandoned) once it holds the lock.
 */
import type postgres from 'postgres';
import { ADVISORY_LOCKS, tryAdvisoryLock } from '../../src/store/advisory-lock.js';
import type { Sql } from '../../src/store/driver.js';
import { TradesealError } from '../../src/errors.js';
import type { RunRecord } from './types.js';

export const STALE_RUN_MS = 15 * 60_000;

const busy = (detail: string): TradesealError =>
  new TradesealError('pipeline_running', detail, { hint: 'wait for it to finish (`tradeseal pipeline status`), then run again' });

export async function withRunLock<T>(sql: Sql, run: RunRecord, fn: (conn: postgres.ReservedSql) => Promise<T>): Promise<T> {
  const conn = await sql.reserve();
  let locked = false;
  try {
    locked = await tryAdvisoryLock(conn, ADVISORY_LOCKS.pipeline);
    if (!locked) throw busy('another pipeline run holds the lock');
    const [live] = await conn<Array<{ run_id: string; started_at: Date }>>`
      select run_id, started_at from model_runs
      where status = 'running' and started_at > clock_timestamp() - make_interval(secs => ${STALE_RUN_MS / 1000})
      order by started_at desc limit 1`;
    if (live) throw busy(`pipeline run ${live.run_id} has been running since ${live.started_at.toISOString()}`);
    await conn`update model_runs set status = 'failed', error = 'abandoned: the process ended before publishing', finished_at = clock_timestamp()
               where status = 'running'`;
    await conn`
      insert into model_runs (run_id, started_at, status, as_of, data_vintage, model_version, seed, parameters)
      values (${run.run_id}, ${run.started_at}, 'running', ${run.as_of}, ${conn.json(run.data_vintage as never)}, ${run.model_version},
              ${run.seed}, ${conn.json(run.parameters as never)})`;
    try {
      return await fn(conn);
    } catch (err) {
      await conn`update model_runs set status = 'failed', error = ${(err as Error).message.slice(0, 2000)}, finished_at = clock_timestamp()
                 where run_id = ${run.run_id} and status = 'running'`.catch(() => {});
      throw err;
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
}

export async function recentRuns(sql: Sql, limit: number): Promise<RunSummaryRow[]> {
  return sql<RunSummaryRow[]>`
    select run_id, started_at, finished_at, status, as_of::text as as_of, model_version, seed, days, first_day::text as first_day,
           last_day::text as last_day, pca_fit_date::text as pca_fit_date, hmm_fit_date::text as hmm_fit_date, timings_ms, error
    from model_runs order by started_at desc limit ${limit}`;
}
