/**
 * A window of the published history (`start`, `end`, both inclusive, either open): a window that ends before
 * it starts is `validation_failed` on `start` (422, exit 2), not an empty answer that looks like "no data".
 */
import { validationError } from '../../core/errors.js';

export function checkDateRange(start: string | null | undefined, end: string | null | undefined): void {
  if (start && end && start > end) throw validationError([{ field: 'start', message: `${start} is after the end of the window (${end})` }]);
}

/** A window of at most `maxDays` calendar days, both ends included (`signals/range`: 365). */
export function checkWindowLength(start: string, end: string, maxDays: number): void {
  const days = (Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000 + 1;
  if (days > maxDays) throw validationError([{ field: 'end', message: `the window ${start} to ${end} spans ${days} days; at most ${maxDays}` }]);
}
