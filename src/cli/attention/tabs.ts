/**
 * The tabs of the compliance officer's terminal view (`tradeseal engine orphans` on a terminal): one per kind
 * of trace that needs attention, each a filter of the trace listing. Stale PENDING means authorized longer
 * ago than `engine pending`'s default age (the same schema default, one source).
 */
import { pendingQuery } from '../../engine/inputs.js';
import type { TraceFilter } from '../../engine/store/traces.js';

export interface AttentionTab {
  id: string;
  label: string;
  /** What the tab lists, and why it needs attention (shown under the tabs). */
  about: string;
  filter: (now: number) => Pick<TraceFilter, 'statuses' | 'olderThan' | 'needsAttention'>;
}

export const STALE_PENDING_SECONDS = pendingQuery.properties.age_seconds.default;

export const ATTENTION_TABS: readonly AttentionTab[] = [
  {
    id: 'divergent',
    label: 'DIVERGENT',
    about: 'bound to an execution that differs from what was authorized (Enter shows the reason)',
    filter: () => ({ statuses: ['DIVERGENT'] }),
  },
  { id: 'expired', label: 'EXPIRED', about: 'authorized, never bound before the expiry', filter: () => ({ statuses: ['EXPIRED'] }) },
  { id: 'mismatch', label: 'MISMATCH', about: 'bound on another side or asset than authorized', filter: () => ({ statuses: ['MISMATCH'] }) },
  // An ORPHAN a later bind of its execution resolved no longer needs attention (needsAttention leaves it out).
  {
    id: 'orphan',
    label: 'ORPHAN',
    about: 'executions on the exchange with no authorization (reconciliation)',
    filter: () => ({ statuses: ['ORPHAN'], needsAttention: true }),
  },
  {
    id: 'shadow',
    label: 'SHADOW_HALTED',
    about: 'orders the policy would have stopped, let through in shadow mode',
    filter: () => ({ statuses: ['SHADOW_HALTED'] }),
  },
  {
    id: 'stale',
    label: 'STALE PENDING',
    about: `authorized more than ${STALE_PENDING_SECONDS / 60} minutes ago and not bound yet`,
    filter: (now) => ({ statuses: ['PENDING'], olderThan: new Date(now - STALE_PENDING_SECONDS * 1000) }),
  },
];
