/** Terminal rendering of a day's check against the track log (`tradeseal signals verify`). */
import type { DayLogCheck } from '../signals/track/day-check.js';

const MARK = { pass: '✓', fail: '✗', skipped: '-' } as const;

export function renderDayCheck(result: DayLogCheck): string {
  const failed = result.checks.filter((c) => c.status === 'fail');
  const original = result.leaves.find((l) => l.original);
  const verdict = result.valid
    ? `${result.date} is proven in the track log: ${original ? `first logged ${original.logged_at} as ${original.kind}` : 'no leaf'}, in the signed tree of ${result.tree_size} leaves (root ${result.root_hash}), which holds the tree of ${result.saved_tree_size} you saved`
    : `${result.date} is NOT proven in the track log: ${failed.map((c) => c.check).join(', ')} failed`;
  const leaves = result.leaves.map((l) => `  leaf ${l.leaf_index}  ${l.original ? 'original     ' : 'republished  '}${l.kind.padEnd(13)} logged ${l.logged_at}${l.in_saved_head ? '  (in the head you saved)' : ''}`);
  return [
    `key_id ${result.key_id}`,
    ...result.checks.map((c) => `${MARK[c.status]} ${c.check}: ${c.detail}`),
    ...(leaves.length > 0 ? [`leaves of ${result.date}:`, ...leaves] : []),
    verdict,
  ].join('\n');
}
