/** Terminal rendering of the transparency log's heads, keys and checks (`tradeseal engine log …`). */
import type { TraceLogCheck } from '../core/log/trace-check.js';
import type { SignedTreeHead } from '../core/log/tree-head.js';

const MARK = { pass: '✓', fail: '✗', skipped: '-' } as const;

export function renderHead(head: SignedTreeHead): string {
  return [
    `tree_size  ${head.tree_size}`,
    `root_hash  ${head.root_hash}`,
    `timestamp  ${head.timestamp} (${new Date(head.timestamp).toISOString()})`,
    `signature  ${head.signature}`,
    `key_id     ${head.key_id}`,
  ].join('\n');
}

export function renderLogCheck(result: TraceLogCheck, keyNote: string): string {
  const failed = result.checks.filter((c) => c.status === 'fail');
  const verdict = result.valid
    ? `trace ${result.trace_id} is in the log: included in the signed tree of ${result.tree_size} leaves (root ${result.root_hash})`
    : `trace ${result.trace_id} is NOT proven in the log: ${failed.map((c) => c.check).join(', ')} failed`;
  return [`public key: ${keyNote}`, ...result.checks.map((c) => `${MARK[c.status]} ${c.check}: ${c.detail}`), verdict].join('\n');
}
