/**
 * The engine's housekeeping, once a minute in every server (and once by `tradeseal engine sweep`):
 * PENDING traces older than `TRACE_EXPIRY_MS` become EXPIRED; order-rate counters older than a minute
 * are dropped; the monthly trace partitions of this month and the next two exist; an ORPHAN resolved by a bind
 * whose comparison and audit entry were not recorded (the process stopped in between) is recorded.
 * Every statement is idempotent, so N instances sweeping at once do no harm.
 */
import type { Sql } from 'postgres';
import { DEFAULT_QUANTITY_TOLERANCE } from './dropcopy/apply.js';
import { completePendingResolutions } from './reconcile/resolve.js';
import { pruneOrderRate } from './store/rate-and-marks.js';
import { expirePending } from './store/traces.js';

export const SWEEP_INTERVAL_MS = 60_000;

export interface SweepResult {
  expired: number;
  rate_rows_pruned: number;
  partitions_created: number;
  /** Why the month partitions could not be created, if they could not (the sweeper logs it). */
  partition_error?: string;
}

export async function sweep(sql: Sql, nowMs: number, expiryMs: number, quantityTolerance = DEFAULT_QUANTITY_TOLERANCE): Promise<SweepResult> {
  const expired = await expirePending(sql, new Date(nowMs - expiryMs));
  const pruned = await pruneOrderRate(sql, nowMs);
  await completePendingResolutions(sql, quantityTolerance, 'sweeper');
  try {
    const [row] = await sql<Array<{ n: number }>>`select ensure_trace_partitions(${new Date(nowMs)}, 3) as n`;
    return { expired, rate_rows_pruned: pruned, partitions_created: row?.n ?? 0 };
  } catch (err) {
    // E.g. a month's rows already in the default partition block its partition. Traces stay readable and
    // writable there, so the sweep goes on; the reason is reported, not swallowed.
    return { expired, rate_rows_pruned: pruned, partitions_created: 0, partition_error: (err as Error).message };
  }
}

/** Runs `sweep` every minute until stopped; a failed sweep is logged and retried at the next tick. */
/** `onSweep` hears each sweep's result, or null for a sweep that failed (the server's metrics count them). */
export function startSweeper(sql: Sql, now: () => number, expiryMs: number, log: (msg: string, err?: unknown) => void,
  onSweep: (result: SweepResult | null) => void = () => {}): () => void {
  let running = false;
  const tick = (): void => {
    if (running) return;
    running = true;
    sweep(sql, now(), expiryMs)
      .then((r) => {
        onSweep(r);
        if (r.expired > 0) log(`sweeper: ${r.expired} pending trace(s) expired`);
        if (r.partition_error) log('sweeper: could not create the coming months\' trace partitions', new Error(r.partition_error));
      })
      .catch((err) => {
        onSweep(null);
        log('sweeper failed', err);
      })
      .finally(() => {
        running = false;
      });
  };
  const timer = setInterval(tick, SWEEP_INTERVAL_MS);
  timer.unref();
  tick();
  return () => clearInterval(timer);
}
