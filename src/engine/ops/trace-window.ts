/**
 * The time window of a trace listing (`GET /engine/traces?from&to`, `tradeseal engine traces list --from
 * --to`): both bounds are inclusive, and a window that ends before it starts is `validation_failed` on
 * `from` (422, exit 2) rather than an empty listing that looks like "no traces". The next page of a listing
 * is named by the last trace of the previous one (keyset, never an offset): `before_time` and
 * `before_trace_id` together.
 */
import { validationError } from '../../core/errors.js';

/** Unix ms bounds, either optional. */
export function checkTraceWindow(from: number | undefined, to: number | undefined): void {
  if (from !== undefined && to !== undefined && from > to) {
    throw validationError([{ field: 'from', message: `must not be later than the end of the window (${new Date(to).toISOString()})` }]);
  }
}

/** The keyset cursor of a listing's next page; one half without the other is `validation_failed`. */
export function listingCursor(beforeTime: number | undefined, beforeTraceId: string | undefined): { txn_time: Date; trace_id: string } | null {
  if (beforeTime === undefined && beforeTraceId === undefined) return null;
  if (beforeTime === undefined) throw validationError([{ field: 'before_time', message: 'is required with before_trace_id' }]);
  if (beforeTraceId === undefined) throw validationError([{ field: 'before_trace_id', message: 'is required with before_time' }]);
  return { txn_time: new Date(beforeTime), trace_id: beforeTraceId };
}
