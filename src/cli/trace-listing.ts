/**
 * The trace listings of `engine traces list`, `engine pending` and `engine orphans`: one shape (the HTTP
 * listing's `{count, has_more, traces}`), one `--limit` flag, one table.
 */
import { Flags } from '@oclif/core';
import type { ListingItem } from '../engine/store/traces.js';
import { renderTable } from './table.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 5000;

export interface TraceListing {
  count: number;
  has_more: boolean;
  traces: ListingItem[];
}

export const limitFlag = Flags.integer({
  summary: `How many traces at most (1-${MAX_LIMIT})`,
  default: DEFAULT_LIMIT,
  min: 1,
  max: MAX_LIMIT,
});

export const toListing = ({ items, hasMore }: { items: ListingItem[]; hasMore: boolean }): TraceListing =>
  ({ count: items.length, has_more: hasMore, traces: items });

/** Newest first, as stored; `what` names the listing when it is empty ("no pending traces"). */
export function renderTraceListing(listing: TraceListing, what = 'traces'): string {
  if (listing.count === 0) return `no ${what}`;
  const table = renderTable(
    ['txn_time', 'trace_id', 'agent_id', 'status', 'action', 'asset', 'notional', 'reasoning_hash'],
    listing.traces.map((t) => [
      t.txn_time.toISOString(), t.trace_id, t.agent_id, t.status, t.action, t.asset,
      `${t.notional} ${t.notional_currency}`, `${t.reasoning_hash.slice(0, 16)}…`,
    ]),
  );
  return `${table}\n${listing.count} shown${listing.has_more ? '; more exist (raise --limit, or narrow the window)' : ''}`;
}
