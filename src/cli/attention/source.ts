/**
 * Where the terminal view reads: a page of a tab (keyset, newest first, never a full load), one trace as its
 * served document, its verification, its inclusion in the transparency log, and the state of the FIX drop-copy
 * session (../../engine/dropcopy/status.ts). `storeSource` reads the local
 * store as the other commands do; `engineSource` asks a remote engine over its HTTP API (the same shapes).
 */
import type { Sql } from 'postgres';
import type { Config } from '../../core/config.js';
import { TradesealError } from '../../core/errors.js';
import { readDropCopyStatus, type ConfiguredSession, type DropCopyStatus } from '../../engine/dropcopy/status.js';
import type { DataKeys } from '../../secrets/kms/data-keys.js';
import { NO_KEY_PROVIDER, type KeySettings } from '../../secrets/kms/from-config.js';
import { checkTraceInLog, type TraceLogCheck } from '../../core/log/trace-check.js';
import { tracePersonal } from '../../engine/ops/trace-personal.js';
import { getTrace, listTraces, type ListingItem } from '../../engine/store/traces.js';
import { readTraceReconciliation } from '../../engine/reconcile/trace-view.js';
import { traceDocument, verifyTrace, type TraceVerification } from '../../engine/trace/read.js';
import { askEngine, type EngineRemote } from '../engine-client.js';
import { localTraceInLog, remoteTraceInLog, type TraceInLog } from '../log-source.js';
import type { TraceListing } from '../trace-listing.js';
import type { AttentionTab } from './tabs.js';

export interface PageQuery {
  search: string | null;
  after: { txn_time: Date; trace_id: string } | null;
  limit: number;
}

/** The trace's place in the transparency log, checked in this process; or why it could not be checked. */
export type LogInclusion = { check: TraceLogCheck; key: string } | { unavailable: string };

export interface AttentionSource {
  /** Which store or engine the view reads, for a person (named when a tab is empty): `storeDescription(config)`, or the engine's URL. */
  readsFrom: string;
  page(tab: AttentionTab, query: PageQuery): Promise<{ items: ListingItem[]; hasMore: boolean }>;
  /** The document of GET /engine/trace/{id}; null when there is no such trace. */
  trace(traceId: string): Promise<Record<string, unknown> | null>;
  verify(traceId: string): Promise<TraceVerification | null>;
  inLog(traceId: string): Promise<LogInclusion>;
  /** The FIX drop-copy session's status; null when the token may not read it (a client token) or the engine has no such route. */
  dropCopy(): Promise<DropCopyStatus | null>;
}

/** The log check of `read`'s head and proofs under `publicKey`; a trace not (yet) in the log is reported, not thrown. */
async function logInclusion(read: () => Promise<TraceInLog & { logPublicKey?: Uint8Array }>, given: Uint8Array | null): Promise<LogInclusion> {
  try {
    const found = await read();
    const publicKey = given ?? found.logPublicKey;
    if (!publicKey) return { unavailable: 'log: not checked: pass --public-key, the log key you hold' };
    return {
      check: checkTraceInLog({ head: found.head, proof: found.proof, trace: found.trace, publicKey }),
      key: given ? 'the key given with --public-key' : "the log's own key, read from this store",
    };
  } catch (error) {
    if (error instanceof TradesealError && error.code === 'not_yet_logged')
      return { unavailable: 'log: not yet in the transparency log (a running server logs it within a second)' };
    if (error instanceof TradesealError && error.code === 'not_found') return { unavailable: `log: ${error.message}` };
    throw error;
  }
}

export interface StoreSourceOptions {
  now?: () => number;
  /** For the log check: the log's key setting (LOG_SIGNING_KEY) and, if given, the public key to trust. */
  log?: { config: Pick<Config, 'logSigningKey'> & KeySettings; publicKey: Uint8Array | null };
  /** The drop-copy session these settings configure (`configuredSession(config)`), if any. */
  dropCopy?: ConfiguredSession | null;
  /** Which store `sql` is (`storeDescription(config)`); by default "the local store". */
  readsFrom?: string;
}

export function storeSource(sql: Sql, keys: DataKeys | null, options: StoreSourceOptions = {}): AttentionSource {
  const now = options.now ?? Date.now;
  const log = options.log ?? { config: { logSigningKey: null, ...NO_KEY_PROVIDER }, publicKey: null };
  const load = async (traceId: string) => {
    const row = await getTrace(sql, traceId);
    return row ? { row, personal: await tracePersonal(sql, keys, row) } : null;
  };
  return {
    readsFrom: options.readsFrom ?? 'the local store',
    page: (tab, q) => listTraces(sql, { ...tab.filter(now()), search: q.search, after: q.after, limit: q.limit }),
    trace: async (traceId) => {
      const found = await load(traceId);
      return found ? traceDocument(found.row, found.personal, await readTraceReconciliation(sql, found.row.trace_id)) : null;
    },
    verify: async (traceId) => {
      const found = await load(traceId);
      return found ? verifyTrace(found.row, found.personal) : null;
    },
    inLog: (traceId) => logInclusion(() => localTraceInLog(sql, log.config, traceId), log.publicKey),
    dropCopy: () => readDropCopyStatus(sql, options.dropCopy ?? null, new Date(now())),
  };
}

/** A remote engine's answer, or null when it answers one of `codes` (by default: there is no such trace). */
async function orNull<T>(ask: Promise<T>, codes: readonly string[] = ['not_found']): Promise<T | null> {
  try {
    return await ask;
  } catch (error) {
    if (error instanceof TradesealError && codes.includes(error.code)) return null;
    throw error;
  }
}

/**
 * A remote engine (`--url`, a token that may read traces): the tabs through `GET /engine/traces` (one status,
 * `to` for stale PENDING, `search`, and the keyset cursor `before_time`/`before_trace_id`), a trace and its
 * verification through `GET /engine/trace/{id}[/verify]` (the engine's own checks), and the log inclusion
 * checked here against `publicKey` only: without one it is not checked, since a key fetched from the engine
 * would prove nothing about it. The drop-copy session through `GET /engine/admin/dropcopy`.
 */
export function engineSource(remote: EngineRemote, publicKey: Uint8Array | null, now: () => number = Date.now): AttentionSource {
  const path = (traceId: string, tail = ''): string => `/engine/trace/${encodeURIComponent(traceId)}${tail}`;
  return {
    readsFrom: `the engine at ${remote.url}`,
    page: async (tab, q) => {
      const f = tab.filter(now());
      if (!f.statuses || f.statuses.length !== 1) throw new Error(`the tab ${tab.id} is not one status`);
      const listing = await askEngine<TraceListing>(remote, 'GET', '/engine/traces', {
        query: {
          status: f.statuses[0],
          limit: q.limit,
          search: q.search ?? undefined,
          // olderThan is exclusive and `to` inclusive; times are whole milliseconds.
          to: f.olderThan ? f.olderThan.getTime() - 1 : undefined,
          before_time: q.after?.txn_time.getTime(),
          before_trace_id: q.after?.trace_id,
          needs_attention: f.needsAttention,
        },
      });
      return { items: listing.traces, hasMore: listing.has_more };
    },
    trace: (traceId) => orNull(askEngine<Record<string, unknown>>(remote, 'GET', path(traceId), { revive: false })),
    verify: (traceId) => orNull(askEngine<TraceVerification>(remote, 'GET', path(traceId, '/verify'), { revive: false })),
    inLog: (traceId) =>
      publicKey
        ? logInclusion(() => remoteTraceInLog(remote, traceId), publicKey)
        : Promise.resolve({ unavailable: 'log: not checked: pass --public-key, the log key you hold (a key fetched from the engine would prove nothing)' }),
    // A client token may read traces but not the session (owner and auditor tokens); the view then leaves it out.
    dropCopy: () => orNull(askEngine<DropCopyStatus>(remote, 'GET', '/engine/admin/dropcopy'), ['forbidden', 'not_found']),
  };
}
