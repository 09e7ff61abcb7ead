/** Terminal rendering of the checks against the track log (`tradeseal signals verify`): of a day, or of every day. */
import type { DayLogCheck } from '../signals/track/day-check.js';
import type { DayResult, TrackLogCheck } from '../signals/track/log-check.js';

const MARK = { pass: '✓', fail: '✗', skipped: '-' } as const;

export function renderDayCheck(result: DayLogCheck): string {
  const failed = result.checks.filter((c) => c.status === 'fail');
  const original = result.leaves.find((l) => l.original);
  const verdict = result.valid
    ? `${result.date} is proven in the track log: ${original ? `first logged ${original.logged_at} as ${original.kind}` : 'no leaf'}, in the signed tree of ${result.tree_size} leaves (root ${result.root_hash}), which holds the tree of ${result.saved_tree_size} you saved`
    : `${result.date} is NOT proven in the track log: ${failed.map((c) => c.check).join(', ')} failed`;
  const leaves = result.leaves.map(
    (l) =>
      `  leaf ${l.leaf_index}  ${l.original ? 'original     ' : 'republished  '}${l.kind.padEnd(13)} logged ${l.logged_at}${l.in_saved_head ? '  (in the head you saved)' : ''}`,
  );
  return [
    `key_id ${result.key_id}`,
    ...result.checks.map((c) => `${MARK[c.status]} ${c.check}: ${c.detail}`),
    ...(leaves.length > 0 ? [`leaves of ${result.date}:`, ...leaves] : []),
    verdict,
  ].join('\n');
}

/** A day of a run over every day, on one line: its original leaf, or the checks it failed. */
function dayLine(day: DayResult): string {
  if (!day.valid)
    return `${MARK.fail} ${day.date}  ${day.checks
      .filter((c) => c.status === 'fail')
      .map((c) => `${c.check}: ${c.detail}`)
      .join('; ')}`;
  const [original] = day.leaves;
  const republished = day.leaves.length - 1;
  const since = day.leaves.filter((l) => !l.in_saved_head).length;
  const news = since === 0 ? '' : since === day.leaves.length ? ' (logged since the head you saved)' : ' (republished since the head you saved)';
  return `${MARK.pass} ${day.date}  leaf ${original!.leaf_index}, ${original!.kind}, logged ${original!.logged_at}${republished > 0 ? `, republished ${republished} time${republished > 1 ? 's' : ''}` : ''}${news}`;
}

export function renderLogCheck(result: TrackLogCheck): string {
  const { summary } = result;
  const logFailed = result.checks.filter((c) => c.status === 'fail').map((c) => c.check);
  const beyond =
    summary.beyond_history > 0
      ? `; ${summary.beyond_history} older logged day${summary.beyond_history === 1 ? ' is' : 's are'} beyond your key's history, not checked`
      : '';
  const verdict = result.valid
    ? `all ${summary.days} logged day${summary.days === 1 ? '' : 's'} proven in the track log, in the signed tree of ${result.tree_size} leaves (root ${result.root_hash}), which holds the tree of ${result.saved_tree_size} you saved${beyond}`
    : `the track log is NOT proven: ${[
        ...(logFailed.length > 0 ? [`${logFailed.join(', ')} failed`] : []),
        ...(summary.failed.length > 0 ? [`${summary.failed.length} of ${summary.days} days failed (${summary.failed.join(', ')})`] : []),
        ...(summary.days === 0 ? ['no logged day to check'] : []),
      ].join('; ')}${beyond}`;
  return [`key_id ${result.key_id}`, ...result.checks.map((c) => `${MARK[c.status]} ${c.check}: ${c.detail}`), ...result.days.map(dayLine), verdict].join('\n');
}
