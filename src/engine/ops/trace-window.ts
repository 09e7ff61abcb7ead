/**
 * The time window of a trace listing (`GET /engine/traces?from&to`, `tradeseal engine traces list --from
 * --to`): both bounds are inclusive, and a window that ends before it starts is `validation_failed` on
 * `from` (422, exit 2) rather than an empty listing that looks like "no traces".
 */
import { validationError } from '../../errors.js';

/** Unix ms bounds, either optional. */
export function checkTraceWindow(from: number | undefined, to: number | undefined): void {
  if (from !== undefined && to !== undefined && from > to) {
    throw validationError([{ field: 'from', message: `must not be later than the end of the window (${new Date(to).toISOString()})` }]);
  }
}
