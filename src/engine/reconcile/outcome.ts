/**
 * The outcome of each fill of a drop-copy batch, decided in the batch's order from what was read of the store (the
 * fills recorded before under the same identity, the trace each execution belongs to): pure, so that the rules are
 * one function and the store is read once per batch.
 *
 * - `duplicate`: its identity (session, trading day, ExecID: ./identity.ts) was recorded before, or earlier in the
 *   batch, with the same fields; `conflict`: the same identity with other fields (kept, never applied over the first);
 * - `matched` / `divergent`: it belongs to an authorized trace (by its ExecID's claim or bind, or by the order it
 *   names) and the three-way comparison (./compare.ts) finds no difference / some;
 * - `already_known`: its ExecID's claim is an ORPHAN trace recorded before;
 * - otherwise it has no trace yet: the caller records it as an ORPHAN (`unlinked`).
 */
import { compareFill, type ComparisonSettings, type Difference } from './compare.js';
import { contentDifferences, type ContentDifference, type FillContent } from './identity.js';
import type { DropCopyExecution } from './schema.js';
import type { LinkedTrace } from './store.js';

export type Settled =
  | { outcome: 'duplicate'; trace_id: string | null }
  | { outcome: 'conflict'; trace_id: string | null; conflicts: ContentDifference[] }
  | { outcome: 'matched' | 'divergent'; trace_id: string; differences: Difference[] }
  | { outcome: 'already_known' | 'orphan'; trace_id: string };

export interface BatchFill {
  execution: DropCopyExecution;
  day: string;
  content: FillContent;
}

/** A recorded fill: its fields and the trace it was reconciled with. */
export interface RecordedFill {
  content: FillContent;
  trace_id: string | null;
}

export const identityKey = (day: string, execId: string): string => `${day}\u0000${execId}`;

/** The running state of one batch: what it recorded so far and what it added to each trace's fills. */
export class BatchSettler {
  private readonly seen: Map<string, RecordedFill>;
  private readonly filled = new Map<string, number>();
  /** OrderID → the authorized trace a fill of this batch with that OrderID was linked to. */
  private readonly orders = new Map<string, LinkedTrace>();

  constructor(
    recorded: ReadonlyMap<string, RecordedFill>,
    private readonly settings: ComparisonSettings,
  ) {
    this.seen = new Map(recorded);
  }

  /** Duplicate or conflict when its identity was seen; else null, and the identity is taken by this fill. */
  repeat(f: BatchFill): Settled | null {
    const key = identityKey(f.day, f.execution.exchange_tx_id);
    const before = this.seen.get(key);
    if (!before) {
      this.seen.set(key, { content: f.content, trace_id: null });
      return null;
    }
    const conflicts = contentDifferences(before.content, f.content);
    return conflicts.length === 0 ? { outcome: 'duplicate', trace_id: before.trace_id } : { outcome: 'conflict', trace_id: before.trace_id, conflicts };
  }

  /** The trace of an earlier fill of this batch with the same OrderID, when the store knew none. */
  orderLink(f: BatchFill): LinkedTrace | null {
    return f.execution.order_id ? (this.orders.get(f.execution.order_id) ?? null) : null;
  }

  /** The outcome of a fresh fill linked to `link`; null when it has no trace yet. */
  settle(f: BatchFill, link: LinkedTrace | null): Settled | null {
    if (!link) return null;
    if (link.orphan) return this.note(f, { outcome: 'already_known', trace_id: link.trace_id });
    const before = link.filled_before + (this.filled.get(link.trace_id) ?? 0);
    const e = f.execution;
    const differences = compareFill({
      fill: e,
      order: link,
      bind: link.exchange_tx_id === e.exchange_tx_id ? link : null,
      filled_before: before,
      ...this.settings,
    });
    this.filled.set(link.trace_id, (this.filled.get(link.trace_id) ?? 0) + e.quantity);
    if (e.order_id && !this.orders.has(e.order_id)) this.orders.set(e.order_id, link);
    return this.note(f, { outcome: differences.length === 0 ? 'matched' : 'divergent', trace_id: link.trace_id, differences });
  }

  /** A fresh fill recorded as the ORPHAN trace `traceId`. */
  orphan(f: BatchFill, traceId: string): Settled {
    return this.note(f, { outcome: 'orphan', trace_id: traceId });
  }

  /** The trace the first fill of `f`'s identity was reconciled with (for a repeat settled before its first was). */
  firstTrace(f: BatchFill): string | null {
    return this.seen.get(identityKey(f.day, f.execution.exchange_tx_id))?.trace_id ?? null;
  }

  private note(f: BatchFill, s: Settled): Settled {
    const recorded = this.seen.get(identityKey(f.day, f.execution.exchange_tx_id));
    if (recorded) recorded.trace_id = s.trace_id;
    return s;
  }
}
