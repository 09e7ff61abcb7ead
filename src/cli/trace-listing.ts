/**
 * The trace listings of `engine traces list`, `engine pending` and `engine orphans`: one shape (the HTTP
 * listing's `{count, has_more, traces}`), one `--limit` flag, one table. Flag values are checked with the
 * listing routes' query schemas (src/engine/inputs.ts), as text, the way a query string is.
 */
import { Flags } from '@oclif/core';
import { listingLimit } from '../engine/inputs.js';
import type { ListingItem } from '../engine/store/traces.js';
import { renderTable, type TableStyle } from './table.js';

/** Fewer than the API's default: a listing on a terminal is read, not processed. */
export const DEFAULT_LIMIT = 50;

export interface TraceListing {
  count: number;
  has_more: boolean;
  traces: ListingItem[];
}

export const limitFlag = Flags.string({
  summary: `How many traces at most (${listingLimit.minimum}-${listingLimit.maximum})`,
  default: String(DEFAULT_LIMIT),
  helpValue: 'N',
});

export const toListing = ({ items, hasMore }: { items: ListingItem[]; hasMore: boolean }): TraceListing => ({
  count: items.length,
  has_more: hasMore,
  traces: items,
});

/**
 * Newest first, as stored; `what` names the listing when it is empty ("no pending traces"). Under `--csv` the
 * rows alone. The amount is a number and its currency a column of its own, so a CSV's `notional` parses as one.
 */
export function renderTraceListing(listing: TraceListing, what = 'traces', style: TableStyle = {}): string {
  if (listing.count === 0) return `no ${what}`;
  const table = renderTable(
    ['txn_time', 'trace_id', 'agent_id', 'status', 'action', 'asset', { name: 'notional', unit: 'currency' }, 'currency', 'reasoning_hash'],
    listing.traces.map((t) => [
      t.txn_time.toISOString(),
      t.trace_id,
      t.agent_id,
      t.status,
      t.action,
      t.asset,
      t.notional,
      t.notional_currency,
      t.reasoning_hash,
    ]),
    style,
  );
  if (style.csv) return table;
  return `${table}\n${listing.count} shown${listing.has_more ? '; more exist (raise --limit, or narrow the window)' : ''}`;
}
