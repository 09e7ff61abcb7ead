/**
 * A window of the published history (`start`, `end`, both inclusive, either open): a window that ends before
 * it starts is `validation_failed` on `start` (422, exit 2), not an empty answer that looks like "no data".
 */
import { validationError } from '../../errors.js';

export function checkDateRange(start: string | null | undefined, end: string | null | undefined): void {
  if (start && end && start > end) throw validationError([{ field: 'start', message: `${start} is after the end of the window (${end})` }]);
}
