/**
 * The offline check of every logged day in one run, as `tradeseal signals verify` runs it without `--date`: the
 * log's checks once (`saved_head`, `head`, `growth`: ./day-check.ts), then each day's own (`leaves`, `kinds`,
 * `logged_at`, `served`) against the same newest head, and a summary naming the days that failed. Pure, and
 * trusting nothing but the key and the saved head, as the check of one day.
 *
 * A run that checks no day is not valid: a key whose history holds no logged day proves nothing.
 */
import { checkDay, checkLog, type DayCheck, type DayInput, type DayLeafSummary, type LogCheckInput } from './day-check.js';

export interface DayResult {
  date: string;
  /** Whether every check of the day passed (the log's checks are the run's). */
  valid: boolean;
  leaves: DayLeafSummary[];
  checks: DayCheck[];
}

export interface TrackLogCheck {
  valid: boolean;
  saved_tree_size: number;
  tree_size: number;
  root_hash: string;
  key_id: string;
  /** The log's checks: `saved_head`, `head`, `growth`. */
  checks: DayCheck[];
  /** Every day checked, oldest first. */
  days: DayResult[];
  summary: {
    days: number;
    proven: number;
    /** The dates of the days that failed a check. */
    failed: string[];
    /** Logged days not checked: older than the key's tier reads. */
    beyond_history: number;
  };
}

export interface TrackLogInput extends LogCheckInput {
  days: readonly DayInput[];
  /** Logged days the service did not list: older than the key's tier reads. */
  beyondHistory: number;
}

const passed = (checks: readonly DayCheck[]): boolean => checks.every((c) => c.status !== 'fail');

/** Runs the log's checks and every day's; `valid` when none fails and at least one day was checked. */
export function checkTrackLog(input: TrackLogInput): TrackLogCheck {
  const { saved, head } = input;
  const checks = checkLog(input);
  const days = input.days.map((day): DayResult => {
    const verdict = checkDay(day, saved, head);
    return { date: day.date, valid: passed(verdict.checks), leaves: verdict.leaves, checks: verdict.checks };
  });
  const failed = days.filter((d) => !d.valid).map((d) => d.date);
  return {
    valid: passed(checks) && failed.length === 0 && days.length > 0,
    saved_tree_size: saved.tree_size,
    tree_size: head.tree_size,
    root_hash: head.root_hash,
    key_id: head.key_id,
    checks,
    days,
    summary: { days: days.length, proven: days.length - failed.length, failed, beyond_history: input.beyondHistory },
  };
}
