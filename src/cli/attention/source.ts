/**
 * Where the terminal view reads: a page of a tab (keyset, newest first, never a full load), one trace as its
 * served document, and its verification. `storeSource` reads the local store as the other commands do.
 */
import type { Sql } from 'postgres';
import type { DataKeys } from '../../engine/kms/data-keys.js';
import { tracePersonal } from '../../engine/ops/trace-personal.js';
import { getTrace, listTraces, type ListingItem } from '../../engine/store/traces.js';
import { traceDocument, verifyTrace, type TraceVerification } from '../../engine/trace/read.js';
import type { AttentionTab } from './tabs.js';

export interface PageQuery {
  search: string | null;
  after: { txn_time: Date; trace_id: string } | null;
  limit: number;
}

export interface AttentionSource {
  page(tab: AttentionTab, query: PageQuery): Promise<{ items: ListingItem[]; hasMore: boolean }>;
  /** The document of GET /engine/trace/{id}; null when there is no such trace. */
  trace(traceId: string): Promise<Record<string, unknown> | null>;
  verify(traceId: string): Promise<TraceVerification | null>;
}

export function storeSource(sql: Sql, keys: DataKeys | null, now: () => number = Date.now): AttentionSource {
  const load = async (traceId: string) => {
    const row = await getTrace(sql, traceId);
    return row ? { row, personal: await tracePersonal(sql, keys, row) } : null;
  };
  return {
    page: (tab, q) => listTraces(sql, { ...tab.filter(now()), search: q.search, after: q.after, limit: q.limit }),
    trace: async (traceId) => {
      const found = await load(traceId);
      return found ? traceDocument(found.row, found.personal) : null;
    },
    verify: async (traceId) => {
      const found = await load(traceId);
      return found ? verifyTrace(found.row, found.personal) : null;
    },
  };
}
