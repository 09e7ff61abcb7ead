/**
 * The store side of a reconciliation, every function inside the reconciliation's transaction: which
 * executions a bound trace already records, claiming executions as orphans (the key that makes a second run
 * create nothing), inserting the ORPHAN traces, and the bound traces a window should have listed. `tx` is
 * the reconciliation's transaction (typed as the pool handle, as the other store functions take it).
 */
import type { Sql } from 'postgres';
import type { SealedOrphan } from './orphan.js';

export interface KnownExecution {
  exchange_tx_id: string;
  trace_id: string;
  agent_id: string;
}

export interface BoundTrace {
  trace_id: string;
  agent_id: string;
  exchange_tx_id: string;
  execution_time: Date;
}

/** The traces bound (by bind-execution, not reconciliation) with these exchange_tx_ids, one per id. */
export async function boundTraces(tx: Sql, exchangeTxIds: string[]): Promise<KnownExecution[]> {
  if (exchangeTxIds.length === 0) return [];
  return tx<KnownExecution[]>`
    select distinct on (exchange_tx_id) exchange_tx_id, trace_id, agent_id from traces
    where exchange_tx_id = any(${exchangeTxIds}::text[]) and status <> 'ORPHAN'
    order by exchange_tx_id, txn_time, trace_id`;
}

/**
 * Claims executions as orphans; returns the exchange_tx_ids claimed now. One already claimed (by an earlier
 * reconciliation, or a concurrent one that committed first) is left as it is.
 */
export async function claimOrphans(tx: Sql, orphans: SealedOrphan[]): Promise<Set<string>> {
  if (orphans.length === 0) return new Set();
  const rows = orphans.map((o) => ({ exchange_tx_id: o.execution.exchange_tx_id, trace_id: o.trace_id, txn_time: o.txn_time.toISOString(), agent_id: o.execution.agent_id }));
  const claimed = await tx`
    insert into orphan_executions ${tx(rows, 'exchange_tx_id', 'trace_id', 'txn_time', 'agent_id')}
    on conflict (exchange_tx_id) do nothing returning exchange_tx_id`;
  return new Set(claimed.map((r) => r.exchange_tx_id as string));
}

/** The orphans recorded before for these exchange_tx_ids. */
export async function knownOrphans(tx: Sql, exchangeTxIds: string[]): Promise<KnownExecution[]> {
  if (exchangeTxIds.length === 0) return [];
  return tx<KnownExecution[]>`
    select exchange_tx_id, trace_id, agent_id from orphan_executions where exchange_tx_id = any(${exchangeTxIds}::text[])`;
}

/** Inserts the ORPHAN traces (status ORPHAN, verification_status Orphan), bound to their execution. */
export async function insertOrphanTraces(tx: Sql, orphans: SealedOrphan[]): Promise<void> {
  if (orphans.length === 0) return;
  const rows = orphans.map((o) => ({
    trace_id: o.trace_id, txn_time: o.txn_time, agent_id: o.execution.agent_id, client_order_id: o.client_order_id ?? '',
    status: 'ORPHAN', verification_status: 'Orphan', action: o.execution.side, asset: o.execution.asset, quantity: o.execution.quantity,
    notional: o.notional, notional_currency: o.notional_currency, reasoning_hash: o.reasoning_hash, sealed: o.sealed,
    policy_result: 'UNAUTHORIZED', exchange_tx_id: o.execution.exchange_tx_id, execution_time: o.execution_time,
    executed_asset: o.execution.asset, executed_quantity: o.execution.quantity, executed_side: o.execution.side,
    execution_price: o.execution.price, final_proof: o.final_proof,
  }));
  await tx`insert into traces ${tx(rows,
    'trace_id', 'txn_time', 'agent_id', 'client_order_id', 'status', 'verification_status', 'action', 'asset', 'quantity',
    'notional', 'notional_currency', 'reasoning_hash', 'sealed', 'policy_result', 'exchange_tx_id', 'execution_time',
    'executed_asset', 'executed_quantity', 'executed_side', 'execution_price', 'final_proof')}`;
}

/**
 * Calls `each` with every trace bound (by bind-execution) to an execution of one of `agentIds` within
 * [from, to], a batch at a time, oldest first, so a long window is never held in memory at once.
 */
export async function forEachBoundInWindow(tx: Sql, agentIds: string[], from: Date, to: Date, each: (batch: BoundTrace[]) => void): Promise<void> {
  if (agentIds.length === 0) return;
  const cursor = tx<BoundTrace[]>`
    select trace_id, agent_id, exchange_tx_id, execution_time from traces
    where agent_id = any(${agentIds}::uuid[]) and exchange_tx_id is not null and status <> 'ORPHAN'
      and execution_time >= ${from} and execution_time <= ${to}
    order by execution_time, trace_id`.cursor(5000);
  for await (const batch of cursor) each(batch);
}
