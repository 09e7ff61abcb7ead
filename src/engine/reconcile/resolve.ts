/**
 * A bind that arrives after the drop copy: the exchange's fill came first and, no trace being bound to its ExecID
 * yet, became an ORPHAN trace. The bind's statement (src/engine/store/traces.ts, applyBinds) resolved the orphan's
 * claim in orphan_executions on its key (resolved_by, resolved_at), so the bound trace is the execution's one trace
 * whatever the order of arrival. This completes it, in one transaction: the three-way comparison of the fill (as
 * the ORPHAN trace recorded it) with the authorization and the bind (./compare.ts), recorded on the claim; the
 * drop copy's fill, if it came over FIX, moved to the bound trace (outcome matched or divergent, the ORPHAN kept as
 * `orphan_trace_id`); and an `orphan.resolved` entry of the audit log. The ORPHAN trace is kept as sealed; the
 * listings of what needs attention leave it out once resolved. Should this step not happen after the bind's
 * statement, the sweeper does it (`completePendingResolutions`): exactly once either way (the claim's
 * resolution_recorded_at, under its row lock).
 */
import type { Sql } from 'postgres';
import { withTransaction } from '../../store/transaction.js';
import { appendAudit } from '../audit/append.js';
import { compareFill, type ComparisonSettings, type Difference } from './compare.js';
import { linkedTraces } from './store.js';

export interface Resolution {
  exchange_tx_id: string;
  orphan_trace_id: string;
  trace_id: string;
  outcome: 'matched' | 'divergent';
  differences: Difference[];
  resolved_at: string;
  audit_entry_id: string;
}

export async function completeResolution(
  sql: Sql,
  r: { exchange_tx_id: string; orphan_trace_id: string; settings: ComparisonSettings; actor: string },
): Promise<Resolution | null> {
  return withTransaction(sql, async (tx) => {
    const [fill] = await tx<
      Array<{ asset: string; side: string; quantity: number; price: number; notional_currency: string; agent_id: string; execution_time: Date }>
    >`
      select executed_asset as asset, executed_side as side, executed_quantity as quantity, execution_price as price, notional_currency, agent_id::text as agent_id,
        execution_time
      from traces where trace_id = ${r.orphan_trace_id} and status = 'ORPHAN' limit 1`;
    const [claim] = await tx<Array<{ resolved_by: string | null; resolved_at: Date | null; recorded: boolean }>>`
      select resolved_by::text as resolved_by, resolved_at, resolution_recorded_at is not null as recorded
      from orphan_executions where exchange_tx_id = ${r.exchange_tx_id} for update`;
    // Recorded already (by the bind, or by a sweeper that came first): nothing to do.
    if (!fill || !claim?.resolved_by || !claim.resolved_at || claim.recorded) return null;
    const [link] = await linkedTraces(tx, null, [{ exchange_tx_id: r.exchange_tx_id, agent_id: fill.agent_id, client_order_id: null, order_id: null }]);
    if (!link || link.orphan) return null;
    const differences = compareFill({
      fill,
      order: link,
      bind: link.exchange_tx_id === r.exchange_tx_id ? link : null,
      filled_before: link.filled_before,
      ...r.settings,
    });
    const outcome = differences.length === 0 ? 'matched' : 'divergent';
    const stored = differences.length === 0 ? null : JSON.stringify(differences);
    await tx`update orphan_executions set differences = ${stored}::jsonb, resolution_recorded_at = clock_timestamp() where exchange_tx_id = ${r.exchange_tx_id}`;
    await tx`
      update dropcopy_executions set trace_id = ${link.trace_id}, orphan_trace_id = trace_id, outcome = ${outcome}, differences = ${stored}::jsonb
      where trace_id = ${r.orphan_trace_id}`;
    const resolvedAt = claim.resolved_at.toISOString();
    const entry = await appendAudit(tx, {
      actor: r.actor,
      action: 'orphan.resolved',
      target_id: r.orphan_trace_id,
      details: { exchange_tx_id: r.exchange_tx_id, orphan_trace_id: r.orphan_trace_id, trace_id: link.trace_id, resolved_at: resolvedAt, outcome, differences },
    });
    return {
      exchange_tx_id: r.exchange_tx_id,
      orphan_trace_id: r.orphan_trace_id,
      trace_id: link.trace_id,
      outcome,
      differences,
      resolved_at: resolvedAt,
      audit_entry_id: entry.id,
    };
  });
}

/**
 * Completes the resolutions a bind made but did not record (the process stopped, or the store failed, between its
 * statement and the transaction above): at most `limit` per call, oldest first, each in its own transaction. One
 * that fails is reported in `errors` and does not stop the others. Returns how many it recorded, and the failures.
 */
export async function completePendingResolutions(
  sql: Sql,
  settings: ComparisonSettings,
  actor: string,
  limit = 100,
): Promise<{ recorded: number; errors: Array<{ exchange_tx_id: string; error: string }> }> {
  const pending = await sql<Array<{ exchange_tx_id: string; orphan_trace_id: string }>>`
    select exchange_tx_id, trace_id::text as orphan_trace_id from orphan_executions
    where resolved_by is not null and resolution_recorded_at is null order by resolved_at limit ${limit}`;
  let recorded = 0;
  const errors: Array<{ exchange_tx_id: string; error: string }> = [];
  for (const p of pending) {
    try {
      if (await completeResolution(sql, { ...p, settings, actor })) recorded++;
    } catch (err) {
      errors.push({ exchange_tx_id: p.exchange_tx_id, error: (err as Error).message });
    }
  }
  return { recorded, errors };
}
