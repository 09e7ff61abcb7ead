/**
 * The store side of a reconciliation, every function inside the reconciliation's transaction: which
 * executions a bound trace already records, recording executions as orphans (claimed by a key that makes a second
 * run create nothing, with their ORPHAN traces), and the bound traces a window should have listed. `tx` is
 * the reconciliation's transaction (typed as the pool handle, as the other store functions take it).
 */
import type { Sql } from 'postgres';
import type { SealedOrphan } from './orphan.js';
import type { SqlOrTx } from '../../store/transaction.js';

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

/**
 * The traces bound (by bind-execution, not reconciliation) with these exchange_tx_ids: the first by txn_time of
 * each id. One probe of traces_by_exchange_tx_id per id, in every month partition, whatever the statistics say:
 * as `exchange_tx_id = any($1)` over the partitions, a plan made on a table not yet analyzed scanned each partition
 * and compared every row with every id (2 ms a drop-copy batch of 25 at 2,000 traces, growing with the table).
 */
export async function boundTraces(tx: Sql, exchangeTxIds: string[]): Promise<KnownExecution[]> {
  if (exchangeTxIds.length === 0) return [];
  return tx<KnownExecution[]>`
    select distinct on (b.exchange_tx_id) b.exchange_tx_id, b.trace_id, b.agent_id from unnest(${exchangeTxIds}::text[]) as u(id)
    cross join lateral (
      select exchange_tx_id, trace_id, agent_id, txn_time from traces
      where exchange_tx_id = u.id and status <> 'ORPHAN'
      offset 0
    ) b
    order by b.exchange_tx_id, b.txn_time, b.trace_id`;
}

/**
 * Records executions as orphans, in one statement: each is claimed (orphan_executions, keyed by exchange_tx_id)
 * and, when claimed now, its ORPHAN trace is inserted (status ORPHAN, verification_status Orphan, bound to its
 * execution) with its two transparency-log leaves queued (its reasoning_hash, then its final_proof; migration
 * 0023). One already claimed (by an earlier reconciliation, or a concurrent one that committed first) is left as
 * it is: no trace, nothing queued. Returns the exchange_tx_ids claimed now.
 */
export async function recordOrphans(tx: SqlOrTx, orphans: SealedOrphan[]): Promise<Set<string>> {
  if (orphans.length === 0) return new Set();
  // One parameter, the rows as JSON text (JSON.stringify escapes the sealed texts natively, far faster than an
  // array literal's escaping): one prepared statement for any batch, one round trip.
  const rows = JSON.stringify(
    orphans.map((o) => ({
      trace_id: o.trace_id,
      txn_time: o.txn_time.toISOString(),
      agent_id: o.execution.agent_id,
      client_order_id: o.client_order_id ?? '',
      action: o.execution.side,
      asset: o.execution.asset,
      quantity: o.execution.quantity,
      notional: o.notional,
      notional_currency: o.notional_currency,
      reasoning_hash: o.reasoning_hash,
      sealed: o.sealed,
      exchange_tx_id: o.execution.exchange_tx_id,
      execution_time: o.execution_time.toISOString(),
      execution_price: o.execution.price,
      final_proof: o.final_proof,
    })),
  );
  const claimed = await tx<Array<{ exchange_tx_id: string }>>`
    with u as (
      select * from rows from (json_to_recordset(${rows}::text::json) as (trace_id uuid, txn_time timestamptz, agent_id uuid,
        client_order_id text, action text, asset text, quantity float8, notional float8, notional_currency text, reasoning_hash text,
        sealed text, exchange_tx_id text, execution_time timestamptz, execution_price float8, final_proof text)) with ordinality as u(
        trace_id, txn_time, agent_id, client_order_id, action, asset, quantity, notional, notional_currency, reasoning_hash, sealed,
        exchange_tx_id, execution_time, execution_price, final_proof, ord)
    ), claimed as (
      insert into orphan_executions (exchange_tx_id, trace_id, txn_time, agent_id)
      select exchange_tx_id, trace_id, txn_time, agent_id from u order by ord
      on conflict (exchange_tx_id) do nothing
      returning exchange_tx_id, trace_id
    ), created as (
      select u.* from u join claimed c on c.trace_id = u.trace_id
    ), ins as (
      insert into traces (trace_id, txn_time, agent_id, client_order_id, status, verification_status, action, asset, quantity,
        notional, notional_currency, reasoning_hash, sealed, policy_result, exchange_tx_id, execution_time,
        executed_asset, executed_quantity, executed_side, execution_price, final_proof)
      select u.trace_id, u.txn_time, u.agent_id, u.client_order_id, 'ORPHAN', 'Orphan', u.action, u.asset, u.quantity,
        u.notional, u.notional_currency, u.reasoning_hash, u.sealed, 'UNAUTHORIZED', u.exchange_tx_id, u.execution_time,
        u.asset, u.quantity, u.action, u.execution_price, u.final_proof
      from created u order by u.ord
    ), queued as (
      insert into log_queue (trace_id, agent_id, kind, data)
      select u.trace_id, u.agent_id, l.kind, l.data
      from created u cross join lateral (values (0, 'reasoning_hash', log_leaf(u.reasoning_hash)), (1, 'final_proof', log_leaf(u.final_proof))) as l(step, kind, data)
      where l.data is not null
      order by u.ord, l.step
    )
    select exchange_tx_id from claimed`;
  return new Set(claimed.map((r) => r.exchange_tx_id));
}

/** The orphans recorded before for these exchange_tx_ids. */
export async function knownOrphans(tx: Sql, exchangeTxIds: string[]): Promise<KnownExecution[]> {
  if (exchangeTxIds.length === 0) return [];
  // One probe of the primary key per id, whatever the statistics say (see boundTraces).
  return tx<KnownExecution[]>`
    select o.exchange_tx_id, o.trace_id, o.agent_id from unnest(${exchangeTxIds}::text[]) as u(id)
    cross join lateral (select exchange_tx_id, trace_id, agent_id from orphan_executions where exchange_tx_id = u.id offset 0) o`;
}

/**
 * Calls `each` with every trace bound (by bind-execution) to an execution of one of `agentIds` within
 * [from, to], a batch at a time, oldest first, so a long window is never held in memory at once.
 */
export async function forEachBoundInWindow(tx: SqlOrTx, agentIds: string[], from: Date, to: Date, each: (batch: BoundTrace[]) => void): Promise<void> {
  if (agentIds.length === 0) return;
  const cursor = tx<BoundTrace[]>`
    select trace_id, agent_id, exchange_tx_id, execution_time from traces
    where agent_id = any(${agentIds}::uuid[]) and exchange_tx_id is not null and status <> 'ORPHAN'
      and execution_time >= ${from} and execution_time <= ${to}
    order by execution_time, trace_id`.cursor(5000);
  for await (const batch of cursor) each(batch);
}

/** What a fill is looked up by: its ExecID, and the order it names (ClOrdID with its Account, or OrderID). */
export interface LinkQuery {
  exchange_tx_id: string;
  agent_id: string;
  client_order_id: string | null;
  order_id: string | null;
}

/**
 * The trace an execution belongs to, with what the three-way comparison needs of it: the authorization (the
 * sealed order: agent, action, asset, quantity, limit price, currency), the bind (exchange_tx_id and what it
 * reported) and the quantity of the fills the drop copy linked to it so far.
 * - `claim`: the execution's claim (orphan_executions): a bind's, an ORPHAN's (`orphan` true, unless resolved,
 *   when the trace is the bound one that resolved it);
 * - `bound`: a trace bound with the exchange_tx_id that has no claim (bound before claims were kept);
 * - `order`: the trace of the order the fill names: the agent's trace with its ClOrdID as client_order_id, or
 *   the trace an earlier fill of its OrderID in the session was linked to.
 */
export interface LinkedTrace {
  via: 'claim' | 'bound' | 'order';
  /** The execution's claim is an ORPHAN's, unresolved: the trace is that ORPHAN. */
  orphan: boolean;
  trace_id: string;
  txn_time: Date;
  /** The trace's status: whether it authorizes an execution (compare.ts). */
  status: string;
  agent_id: string;
  action: string;
  asset: string;
  quantity: number;
  notional_currency: string;
  limit_price: number | null;
  exchange_tx_id: string | null;
  executed_asset: string | null;
  executed_side: string | null;
  executed_quantity: number | null;
  execution_price: number | null;
  /** The quantity of the drop copy's fills linked to the trace (matched or divergent). */
  filled_before: number;
}

/**
 * The trace of each query (null when none), in one statement: per query, the first of the routes above that finds
 * one (each one probe of a key; `offset 0`, as in boundTraces, keeps each a probe whatever the statistics say),
 * then the trace's row in its partition. `sessionKey` null: no OrderID route (a file's reconciliation).
 */
export async function linkedTraces(tx: SqlOrTx, sessionKey: string | null, queries: readonly LinkQuery[]): Promise<Array<LinkedTrace | null>> {
  if (queries.length === 0) return [];
  const col = <T>(f: (q: LinkQuery) => T): T[] => queries.map(f);
  const rows = await tx<Array<LinkedTrace & { ord: number }>>`
    select u.ord::int as ord, l.via, l.orphan, t.trace_id::text, t.txn_time, t.status, t.agent_id::text, t.action, t.asset, t.quantity, t.notional_currency,
      (t.sealed::jsonb #>> '{execution,limit_price}')::float8 as limit_price, t.exchange_tx_id, t.executed_asset, t.executed_side,
      t.executed_quantity, t.execution_price,
      coalesce((select sum(e.quantity) from dropcopy_executions e where e.trace_id = t.trace_id and e.outcome in ('matched', 'divergent')), 0)::float8 as filled_before
    from unnest(${col((q) => q.exchange_tx_id)}::text[], ${col((q) => q.agent_id)}::uuid[], ${col((q) => q.client_order_id)}::text[],
      ${col((q) => q.order_id)}::text[]) with ordinality as u(id, agent, clord, order_id, ord)
    cross join lateral (
      (select coalesce(o.resolved_by, o.trace_id) as trace_id, coalesce(o.resolved_txn_time, o.txn_time) as txn_time, 'claim' as via,
         o.kind = 'orphan' and o.resolved_by is null as orphan
       from orphan_executions o where o.exchange_tx_id = u.id offset 0)
      union all
      (select b.trace_id, b.txn_time, 'bound', false
       from (select trace_id, txn_time from traces where exchange_tx_id = u.id and status <> 'ORPHAN' offset 0) b
       order by b.txn_time, b.trace_id limit 1)
      union all
      (select i.trace_id, i.txn_time, 'order', false from trace_idempotency i
       where u.clord is not null and i.agent_id = u.agent and i.client_order_id = u.clord offset 0)
      union all
      (select e.trace_id, null::timestamptz, 'order', false from dropcopy_executions e
       where u.order_id is not null and e.session_key = ${sessionKey ?? ''} and e.order_id = u.order_id
         and e.outcome in ('matched', 'divergent') limit 1)
      limit 1
    ) l
    cross join lateral (
      select * from traces t where t.trace_id = l.trace_id and (l.txn_time is null or t.txn_time = l.txn_time) limit 1
    ) t`;
  const out: Array<LinkedTrace | null> = queries.map(() => null);
  for (const { ord, ...row } of rows) out[ord - 1] = row;
  return out;
}
