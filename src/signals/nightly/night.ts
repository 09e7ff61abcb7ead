/**
 * One night of the nightly job: publish the trading day that is due (./due.ts), from data fetched just now,
 * or nothing.
 *
 *   fetch every source (../../../pipeline/fetch/fetch-all.ts) → check each series holds the rows its release rule says are out
 *   (./readiness.ts) → run the pipeline as of the due day (../publish/run.ts), which validates the files again and
 *   extends the published history only if the inputs of the published days are unchanged
 *
 * When a series is late or a source is down, the night tries again every `retryMs` until its `deadline`; then it
 * publishes nothing and ends `late`, saying which series lacks which row (or which source failed and how). A run
 * that refuses (a revised input of a published day, another night's run holding the lock past the deadline, an
 * invalid file) ends the night `refused` at once: that needs an operator, and trying again changes nothing. A
 * night starts nothing when the due day is published already.
 *
 * The run is cut at the due day (`asOf`): what it publishes is what was out at the day's publication time, even
 * when the night runs late and later data are in the files. Every try is written to the night's row
 * (./night-store.ts) as it happens.
 *
 * The clock and the sleep are given, so a replay can run nights on simulated time (replay/).
 */
import { randomUUID } from 'node:crypto';
import { TradesealError, type ErrorCode } from '../../core/errors.js';
import type { Sql } from '../../store/driver.js';
import { checkDataDir } from '../../../pipeline/ingest/check-dir.js';
import type { FetchedFile } from '../../../pipeline/fetch/fetch-record.js';
import type { FetchOutcome } from '../../../pipeline/fetch/fetch-all.js';
import { publishedRange } from '../publish/published.js';
import type { RunSummary } from '../publish/run.js';
import { availableAt } from '../../../pipeline/release/publication.js';
import { nextBusinessDay } from '../../core/calendars/business-days.js';
import { dueDay, tradingDaysBetween } from './due.js';
import { insertNight, updateNight, type NightStatus } from './night-store.js';
import { describeLate, readiness, type LateSeries } from './readiness.js';

export interface NightDeps {
  sql: Sql;
  dataDir: string;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /**
   * Fetches into `dataDir` as of the instant given, every series (the first try) or only `series` (the late and
   * failed ones, on a later try: a keyed source's daily calls are not spent on what is complete); a source's
   * failure is in the outcome, not thrown.
   */
  fetch: (nowMs: number, series?: readonly string[]) => Promise<FetchOutcome>;
  /** Runs the pipeline as of `due`, publishing. */
  run: (due: string) => Promise<RunSummary>;
  /** The night's events, one object each (the command writes them as JSON lines). */
  log: (event: Record<string, unknown>) => void;
  /** When the night gives up (ms since the epoch), given the instant it started. */
  deadline: (startedMs: number) => number;
  retryMs: number;
  /** Aborted when the process is asked to stop: a night waiting to try again gives up at once instead. */
  signal?: AbortSignal;
}

export interface NightResult {
  status: NightStatus | 'up_to_date';
  due: string;
  night_id: string | null;
  attempts: number;
  /** The trading days due and not published before the night (the due day and any a late night left). */
  owed: string[];
  reason: string | null;
  late: LateSeries[];
  run: RunSummary | null;
  /** The code of the error that ended the night, when one did (`data_late` for a late one). */
  error_code: ErrorCode | null;
  error: TradesealError | null;
}

/** Codes of a run that trying again within the night may cure: another run held the lock, the store blinked. */
const RETRYABLE: ReadonlySet<string> = new Set(['pipeline_running', 'service_unavailable', 'store_error']);

const fetchedByFile = (files: readonly FetchedFile[]): Record<string, FetchedFile> => Object.fromEntries(files.map((f) => [f.file, f]));

export async function runNight(deps: NightDeps): Promise<NightResult> {
  const started = deps.now();
  const due = dueDay(started);
  const published = await publishedRange(deps.sql);
  const owed = published.last === null ? [due] : tradingDaysBetween(published.last, due);
  const base = { due, owed, late: [] as LateSeries[], run: null, error_code: null, error: null };
  if (owed.length === 0) {
    deps.log({ event: 'up_to_date', due, last_published: published.last });
    return { ...base, status: 'up_to_date', night_id: null, attempts: 0, reason: null };
  }
  const nightId = randomUUID();
  // Never past the next day's publication instant: that belongs to the next night, which its cron starts.
  const deadline = Math.min(deps.deadline(started), availableAt(nextBusinessDay('nyse', due)));
  await insertNight(deps.sql, { night_id: nightId, started_at: new Date(started), due_day: due, deadline: new Date(deadline) });
  deps.log({ event: 'night_started', night_id: nightId, due, days_owed: owed.length, first_owed: owed[0], deadline: new Date(deadline).toISOString() });

  const end = async (
    status: NightStatus,
    attempts: number,
    reason: string | null,
    extra: Partial<NightResult> & { fetched?: Record<string, FetchedFile> | null } = {},
  ): Promise<NightResult> => {
    const { fetched = null, ...rest } = extra;
    await updateNight(deps.sql, nightId, {
      status,
      attempts,
      reason,
      late: extra.late ?? null,
      fetched,
      error_code: extra.error_code ?? null,
      run_id: extra.run?.run_id ?? null,
      finished_at: new Date(deps.now()),
    });
    return { ...base, ...rest, status, night_id: nightId, attempts, reason };
  };

  const fetched: Record<string, FetchedFile> = {};
  let attempt = 0;
  try {
    return await tryUntilDeadline();
  } catch (err) {
    // An unexpected fault (the store, a bug): the night ends `failed` with it, never left `running`.
    const code = err instanceof TradesealError ? err.code : 'internal';
    deps.log({ event: 'failed', night_id: nightId, due, code, error: (err as Error).message });
    await end('failed', attempt, (err as Error).message, { fetched, error_code: code as ErrorCode }).catch(() => undefined);
    throw err;
  }

  /** The night given up: nothing published, the late series and why in its row, `data_late` for the caller. */
  async function late(reason: string, attempts: number, lateSeries: LateSeries[], ending: string): Promise<NightResult> {
    const error = new TradesealError('data_late', `${reason}. ${ending} after ${attempts} tr${attempts === 1 ? 'y' : 'ies'}; nothing was published.`, {
      hint: 'the next night publishes every day owed once the data are complete; `tradeseal pipeline status` shows this night',
    });
    deps.log({ event: 'late', night_id: nightId, due, attempts, code: 'data_late', error: error.message, late: lateSeries });
    return end('late', attempts, reason, { fetched, late: lateSeries, error_code: 'data_late', error });
  }

  async function tryUntilDeadline(): Promise<NightResult> {
    let wanted: string[] | undefined;
    for (attempt = 1; ; attempt++) {
      const outcome = await deps.fetch(deps.now(), wanted);
      Object.assign(fetched, fetchedByFile(outcome.fetched));
      for (const f of outcome.failed) deps.log({ event: 'source_failed', night_id: nightId, attempt, series: f.series, code: f.code, error: f.message });

      const reports = await checkDataDir(deps.dataDir);
      const problems = reports.flatMap((r) => r.problems);
      if (problems.length > 0) {
        // A file that breaks its rules was not written by the fetch (it checks before writing): someone edited it.
        const reason = `the data files break their rules (${problems.length} problems; \`tradeseal pipeline check\` lists them): ${problems
          .slice(0, 3)
          .map((p) => `${p.file}:${p.line} ${p.message}`)
          .join('; ')}`;
        deps.log({ event: 'refused', night_id: nightId, due, code: 'data_invalid', error: reason });
        return end('refused', attempt, reason, {
          fetched,
          error_code: 'data_invalid',
          error: new TradesealError('data_invalid', reason, { hint: '`tradeseal pipeline check` lists every problem by file and line' }),
        });
      }
      const ready = readiness(due, new Map(reports.map((r) => [r.id, r.lastDate])));
      const why = [...ready.late.map(describeLate), ...outcome.failed.map((f) => `${f.series} from its source: ${f.message}`)];
      if (ready.ready) {
        try {
          const run = await deps.run(due);
          deps.log({
            event: 'published',
            night_id: nightId,
            due,
            run_id: run.run_id,
            days: run.days,
            first_day: run.first_day,
            last_day: run.last_day,
            regime: run.latest?.regime ?? null,
            track_log: run.track_log,
            attempt,
          });
          return await end('published', attempt, null, { fetched, run });
        } catch (err) {
          const code = err instanceof TradesealError ? err.code : 'internal';
          if (!RETRYABLE.has(code)) {
            deps.log({ event: 'refused', night_id: nightId, due, code, error: (err as Error).message });
            return end(code === 'internal' ? 'failed' : 'refused', attempt, (err as Error).message, {
              fetched,
              error_code: code as ErrorCode,
              error: err instanceof TradesealError ? err : null,
            });
          }
          why.push(`the run could not start: ${(err as Error).message}`);
        }
      }
      const reason = `${due} is not published: ${why.join('; ')}`;
      wanted = [...new Set([...ready.late.map((l) => l.series), ...outcome.failed.map((f) => f.series)])];
      await updateNight(deps.sql, nightId, { attempts: attempt, reason, late: ready.late, fetched });
      if (deps.signal?.aborted) return late(reason, attempt, ready.late, 'The job was stopped before the deadline');
      if (deps.now() + deps.retryMs > deadline)
        return late(reason, attempt, ready.late, `The deadline ${new Date(deadline).toISOString()} comes before another try`);
      deps.log({ event: 'waiting', night_id: nightId, due, attempt, retry_in_s: deps.retryMs / 1000, reason });
      await deps.sleep(deps.retryMs);
      if (deps.signal?.aborted) return late(reason, attempt, ready.late, 'The job was stopped before the deadline');
    }
  }
}
