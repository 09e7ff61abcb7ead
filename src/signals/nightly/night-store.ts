/**
 * The nights in the store (migration 0027_pipeline_nights.sql): one row per night of the nightly job, written
 * when it starts and after each try, so that `tradeseal pipeline status` and `/metrics` show a night still
 * trying, a late day and why, as it happens.
 */
import type { Sql } from '../../store/driver.js';
import type { FetchedFile } from '../../../pipeline/fetch/fetch-record.js';
import type { LateSeries } from './late-series.js';

export type NightStatus = 'running' | 'published' | 'late' | 'refused' | 'failed';

/**
 * How a night reads: its status, but `abandoned` for one still `running` an hour past its deadline (its process was
 * killed: SIGKILL, out of memory, a pod deleted), which nothing will finish.
 */
export const NIGHT_STATUS_SQL = `case when status = 'running' and deadline < now() - interval '1 hour' then 'abandoned' else status end`;

export interface NightRow {
  night_id: string;
  started_at: Date;
  due_day: string;
  deadline: Date;
  status: NightStatus | 'abandoned';
  attempts: number;
  reason: string | null;
  late: LateSeries[] | null;
  fetched: Record<string, FetchedFile> | null;
  error_code: string | null;
  run_id: string | null;
  finished_at: Date | null;
}

export async function insertNight(sql: Sql, night: { night_id: string; started_at: Date; due_day: string; deadline: Date }): Promise<void> {
  await sql`insert into pipeline_nights (night_id, started_at, due_day, deadline, status) values (${night.night_id}, ${night.started_at}, ${night.due_day}, ${night.deadline}, 'running')`;
}

export interface NightUpdate {
  status?: NightStatus;
  attempts: number;
  reason: string | null;
  late: LateSeries[] | null;
  fetched: Record<string, FetchedFile> | null;
  error_code?: string | null;
  run_id?: string | null;
  finished_at?: Date | null;
}

export async function updateNight(sql: Sql, nightId: string, u: NightUpdate): Promise<void> {
  await sql`
    update pipeline_nights set
      status = coalesce(${u.status ?? null}, status), attempts = ${u.attempts}, reason = ${u.reason},
      late = ${u.late === null ? null : sql.json(u.late as never)}, fetched = ${u.fetched === null ? null : sql.json(u.fetched as never)},
      error_code = coalesce(${u.error_code ?? null}, error_code), run_id = coalesce(${u.run_id ?? null}::uuid, run_id),
      finished_at = coalesce(${u.finished_at ?? null}, finished_at)
    where night_id = ${nightId}`;
}

/** The newest nights first. */
export async function recentNights(sql: Sql, limit: number): Promise<NightRow[]> {
  return sql<NightRow[]>`
    select night_id, started_at, due_day::text as due_day, deadline, ${sql.unsafe(NIGHT_STATUS_SQL)} as status, attempts, reason, late, fetched, error_code, run_id, finished_at
    from pipeline_nights order by started_at desc limit ${limit}`;
}
