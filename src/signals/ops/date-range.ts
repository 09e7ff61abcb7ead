/**
 * A window of the published history (`start`, `end`, both inclusive, either open): a window that ends before
 * it starts is `validation_failed` on `start` (422, exit 2), not an empty answer that looks like "no data".
 */
import { validationError } from '../../core/errors.js';

export function checkDateRange(start: string | null | undefined, end: string | null | undefined): void {
  if (start && end && start > end) throw validationError([{ field: 'start', message: `${start} is after the end of the window (${end})` }]);
}

/** The calendar days from `start` to `end`, both included. */
const spanDays = (start: string, end: string): number => (Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000 + 1;

/** A window of at most `maxDays` calendar days, both ends included (`signals/range`: 365). */
export function checkWindowLength(start: string, end: string, maxDays: number): void {
  const days = spanDays(start, end);
  if (days > maxDays) throw validationError([{ field: 'end', message: `the window ${start} to ${end} spans ${days} days; at most ${maxDays}` }]);
}

/** Windows of at most `maxDays` calendar days covering `dates` (sorted, oldest first), each from one date to another. */
export function windowsOf(dates: readonly string[], maxDays: number): Array<{ start: string; end: string }> {
  const windows: Array<{ start: string; end: string }> = [];
  for (const date of dates) {
    const last = windows.at(-1);
    if (last && spanDays(last.start, date) <= maxDays) last.end = date;
    else windows.push({ start: date, end: date });
  }
  return windows;
}
