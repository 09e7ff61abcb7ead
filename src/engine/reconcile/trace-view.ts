/**
 * What the drop copy and the exchange's reconciliations say of one trace, for its served document (`integrity.
 * reconciliation` of GET /engine/trace/{id}, not sealed): the fills linked to it with their outcome and the fields
 * that differ from the authorization or the bind; for an ORPHAN trace, the bound trace that resolved it and when;
 * for a bound trace, the ORPHAN traces it resolved. Two index probes (dropcopy_executions by trace, orphan_executions
 * by trace and by resolver).
 */
import type { Sql } from 'postgres';
import type { Difference } from './compare.js';

export interface TraceFill {
  exec_id: string;
  trade_date: string;
  outcome: string;
  differences: Difference[];
  applied_at: string;
  /** The ORPHAN trace the fill made before this trace's bind resolved it. */
  orphan_trace_id: string | null;
}

export interface ResolvedOrphan {
  orphan_trace_id: string;
  exchange_tx_id: string;
  resolved_at: string;
  differences: Difference[];
}

export interface TraceReconciliation {
  fills: TraceFill[];
  /** For a resolved ORPHAN trace: the bound trace that is now its execution's trace, and when. */
  resolved_by: string | null;
  resolved_at: string | null;
  /** For a bound trace: the ORPHAN traces of its execution it resolved. */
  resolved: ResolvedOrphan[];
}

export const NO_RECONCILIATION: TraceReconciliation = { fills: [], resolved_by: null, resolved_at: null, resolved: [] };

export async function readTraceReconciliation(sql: Sql, traceId: string): Promise<TraceReconciliation> {
  const [fills, claims] = await Promise.all([
    sql<Array<{ exec_id: string; trade_date: string; outcome: string; differences: Difference[] | null; applied_at: Date; orphan_trace_id: string | null }>>`
      select exec_id, trade_date::text as trade_date, outcome, differences, applied_at, orphan_trace_id::text as orphan_trace_id
      from dropcopy_executions where trace_id = ${traceId} order by applied_at, exec_id limit 1000`,
    sql<Array<{ exchange_tx_id: string; trace_id: string; resolved_by: string; resolved_at: Date; differences: Difference[] | null }>>`
      select exchange_tx_id, trace_id::text as trace_id, resolved_by::text as resolved_by, resolved_at, differences from orphan_executions
      where resolved_by is not null and (trace_id = ${traceId} or resolved_by = ${traceId}) order by resolved_at limit 1000`,
  ]);
  const own = claims.find((c) => c.trace_id === traceId);
  return {
    fills: fills.map((f) => ({ ...f, differences: f.differences ?? [], applied_at: f.applied_at.toISOString() })),
    resolved_by: own?.resolved_by ?? null,
    resolved_at: own ? own.resolved_at.toISOString() : null,
    resolved: claims
      .filter((c) => c.resolved_by === traceId && c.trace_id !== traceId)
      .map((c) => ({
        orphan_trace_id: c.trace_id,
        exchange_tx_id: c.exchange_tx_id,
        resolved_at: c.resolved_at.toISOString(),
        differences: c.differences ?? [],
      })),
  };
}
