/**
 * The engine's housekeeping, once a minute in every server (and once by `tradeseal engine sweep`):
 * PENDING traces older than `TRACE_EXPIRY_MS` become EXPIRED; order-rate counters older than a minute
 * are dropped; the monthly trace partitions of this month and the next two exist; an ORPHAN resolved by a bind
 * whose comparison and audit entry were not recorded (the process stopped in between) is recorded.
 * Every statement is idempotent, so N instances sweeping at once do no harm.
 */
import type { Sql } from 'postgres';
import { comparisonSettings, DEFAULT_COMPARISON_SETTINGS, type ComparisonSettings } from './reconcile/compare.js';
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
  /** The pending resolutions recorded now. */
  resolutions_recorded: number;
  /** Why each pending resolution that could not be recorded failed (the sweeper logs them; the next sweep retries). */
  resolution_errors: Array<{ exchange_tx_id: string; error: string }>;
}

/** The comparison's settings other than the expiry, which `sweep` takes as its own argument. */
export type SweepComparison = Omit<ComparisonSettings, 'expiry_ms'>;

/**
 * One sweep. The month partitions come first: nothing after them (a resolution that fails) can keep the coming
 * months' traces out of their partitions. Each pending resolution is recorded on its own, so one that fails is
 * reported and the others (newer ones too) are recorded all the same.
 */
export async function sweep(sql: Sql, nowMs: number, expiryMs: number, comparison: SweepComparison = DEFAULT_COMPARISON_SETTINGS): Promise<SweepResult> {
  const expired = await expirePending(sql, new Date(nowMs - expiryMs));
  const pruned = await pruneOrderRate(sql, nowMs);
  let partitionsCreated = 0;
  let partitionError: string | undefined;
  try {
    const [row] = await sql<Array<{ n: number }>>`select ensure_trace_partitions(${new Date(nowMs)}, 3) as n`;
    partitionsCreated = row?.n ?? 0;
  } catch (err) {
    // E.g. a month's rows already in the default partition block its partition. Traces stay readable and
    // writable there, so the sweep goes on; the reason is reported, not swallowed.
    partitionError = (err as Error).message;
  }
  const resolutions = await completePendingResolutions(sql, { ...comparison, expiry_ms: expiryMs }, 'sweeper');
  return {
    expired,
    rate_rows_pruned: pruned,
    partitions_created: partitionsCreated,
    ...(partitionError !== undefined ? { partition_error: partitionError } : {}),
    resolutions_recorded: resolutions.recorded,
    resolution_errors: resolutions.errors,
  };
}

/** The sweep's comparison settings from the engine's configuration. */
export const sweepComparison = (c: Parameters<typeof comparisonSettings>[0]): SweepComparison => {
  const { tolerance, clock_tolerance_ms } = comparisonSettings(c);
  return { tolerance, clock_tolerance_ms };
};

/** Runs `sweep` every minute until stopped; a failed sweep is logged and retried at the next tick. */
/** `onSweep` hears each sweep's result, or null for a sweep that failed (the server's metrics count them). */
export function startSweeper(
  sql: Sql,
  now: () => number,
  expiryMs: number,
  log: (msg: string, err?: unknown) => void,
  onSweep: (result: SweepResult | null) => void = () => {},
  comparison: SweepComparison = DEFAULT_COMPARISON_SETTINGS,
): () => void {
  let running = false;
  const tick = (): void => {
    if (running) return;
    running = true;
    sweep(sql, now(), expiryMs, comparison)
      .then((r) => {
        onSweep(r);
        if (r.expired > 0) log(`sweeper: ${r.expired} pending trace(s) expired`);
        if (r.partition_error) log("sweeper: could not create the coming months' trace partitions", new Error(r.partition_error));
        if (r.resolutions_recorded > 0) log(`sweeper: ${r.resolutions_recorded} ORPHAN resolution(s) recorded`);
        for (const f of r.resolution_errors)
          log(`sweeper: could not record the resolution of the ORPHAN of exchange_tx_id ${f.exchange_tx_id}; retried at the next sweep`, new Error(f.error));
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
