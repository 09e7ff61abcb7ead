/**
 * Traces in the store: the sealed insert (with its idempotency record, atomically), the bind, listings,
 * reads and the expiry sweep. Listings are newest first by txn_time, then trace_id.
 */
import type { Sql } from 'postgres';
import type { TraceStatus, VerificationStatus } from '../vocabulary.js';
import type { AuthorizeResponse } from './idempotency.js';

export interface NewTrace {
  trace_id: string;
  txn_time: Date;
  agent_id: string;
  client_order_id: string;
  status: 'PENDING' | 'SHADOW_HALTED';
  action: string;
  asset: string;
  quantity: number;
  notional: number;
  notional_currency: string;
  reasoning_hash: string;
  sealed: string;
  regulatory: object | null;
  regulatory_salt: Buffer | null;
  policy_result: string;
  order_hash: string;
  response: AuthorizeResponse;
}

/**
 * Inserts the trace and its idempotency record in one statement (one round trip, one implicit transaction).
 * Returns false when (agent_id, client_order_id) was taken by a concurrent request: then nothing is written.
 */
export async function insertTrace(sql: Sql, t: NewTrace): Promise<boolean> {
  const rows = await sql`
    with idem as (
      insert into trace_idempotency (agent_id, client_order_id, order_hash, trace_id, txn_time, response)
      values (${t.agent_id}, ${t.client_order_id}, ${t.order_hash}, ${t.trace_id}, ${t.txn_time}, ${sql.json(t.response as never)})
      on conflict do nothing
      returning trace_id
    )
    insert into traces (trace_id, txn_time, agent_id, client_order_id, status, verification_status, action, asset, quantity,
                        notional, notional_currency, reasoning_hash, sealed, regulatory, regulatory_salt, policy_result)
    select ${t.trace_id}, ${t.txn_time}, ${t.agent_id}, ${t.client_order_id}, ${t.status}, 'Pending', ${t.action}, ${t.asset}, ${t.quantity},
           ${t.notional}, ${t.notional_currency}, ${t.reasoning_hash}, ${t.sealed}, ${t.regulatory === null ? null : sql.json(t.regulatory as never)},
           ${t.regulatory_salt}, ${t.policy_result}
    from idem
    returning trace_id`;
  return rows.length === 1;
}

export interface TraceRow {
  trace_id: string;
  txn_time: Date;
  agent_id: string;
  client_order_id: string;
  status: TraceStatus;
  verification_status: VerificationStatus;
  action: string;
  asset: string;
  quantity: number;
  notional: number;
  notional_currency: string;
  reasoning_hash: string;
  sealed: string;
  regulatory: Record<string, string | null> | null;
  regulatory_salt: Buffer | null;
  policy_result: string;
  exchange_tx_id: string | null;
  execution_status: string | null;
  execution_time: Date | null;
  executed_asset: string | null;
  executed_quantity: number | null;
  executed_side: string | null;
  execution_price: number | null;
  divergence_reason: string | null;
  final_proof: string | null;
  bound_at: Date | null;
  expired_at: Date | null;
}

export async function getTrace(sql: Sql, traceId: string): Promise<TraceRow | null> {
  const rows = await sql<TraceRow[]>`select * from traces where trace_id = ${traceId}`;
  return rows[0] ?? null;
}

export interface BindUpdate {
  exchange_tx_id: string;
  execution_status: string;
  execution_time: Date;
  executed_asset: string | null;
  executed_quantity: number | null;
  executed_side: string | null;
  execution_price: number | null;
  verification_status: VerificationStatus;
  divergence_reason: string | null;
  final_proof: string;
}

export type BindOutcome = { kind: 'bound'; trace: TraceRow } | { kind: 'not_found' } | { kind: 'already_bound'; trace: TraceRow };

/**
 * Binds under a row lock: of N concurrent binds of one trace exactly one succeeds, the others see it bound.
 * `decide` computes the verification from the locked row (so it sees an expiry that committed first).
 */
export async function bindTrace(sql: Sql, traceId: string, decide: (locked: TraceRow) => BindUpdate): Promise<BindOutcome> {
  return sql.begin(async (tx) => {
    const [row] = await tx<TraceRow[]>`select * from traces where trace_id = ${traceId} for update`;
    if (!row) return { kind: 'not_found' } as const;
    if (row.final_proof !== null || row.status === 'ORPHAN') return { kind: 'already_bound', trace: row } as const;
    const u = decide(row);
    const listing = row.status === 'SHADOW_HALTED' ? 'SHADOW_HALTED' : u.verification_status.toUpperCase();
    const [bound] = await tx<TraceRow[]>`
      update traces set
        status = ${listing}, verification_status = ${u.verification_status}, exchange_tx_id = ${u.exchange_tx_id},
        execution_status = ${u.execution_status}, execution_time = ${u.execution_time}, executed_asset = ${u.executed_asset},
        executed_quantity = ${u.executed_quantity}, executed_side = ${u.executed_side}, execution_price = ${u.execution_price},
        divergence_reason = ${u.divergence_reason}, final_proof = ${u.final_proof}, bound_at = clock_timestamp()
      where trace_id = ${traceId} and txn_time = ${row.txn_time}
      returning *`;
    return { kind: 'bound', trace: bound as TraceRow } as const;
  }) as Promise<BindOutcome>;
}

/**
 * What needs an officer's attention: DIVERGENT, EXPIRED, MISMATCH and ORPHAN traces (the interface names the
 * first two; a side mismatch and an execution with no trace matter at least as much), and SHADOW_HALTED
 * traces whose verification came out Divergent, Expired or Mismatch (their listing status stays
 * SHADOW_HALTED, as decided, but they must not hide from the orphans listing).
 */
export const ATTENTION_STATUSES: readonly TraceStatus[] = ['DIVERGENT', 'EXPIRED', 'MISMATCH', 'ORPHAN'];
const ATTENTION_VERIFICATIONS: readonly VerificationStatus[] = ['Divergent', 'Expired', 'Mismatch'];

export interface ListingItem {
  trace_id: string;
  agent_id: string;
  status: TraceStatus;
  verification_status: VerificationStatus;
  action: string;
  asset: string;
  notional: number;
  notional_currency: string;
  txn_time: Date;
  reasoning_hash: string;
  final_proof: string | null;
}

export interface TraceFilter {
  agentIds?: string[] | null;
  from?: Date;
  to?: Date;
  statuses?: readonly TraceStatus[];
  /** The orphans listing: every trace that needs an officer's attention (see `ATTENTION_STATUSES`). */
  needsAttention?: boolean;
  olderThan?: Date;
  limit: number;
}

/** Lists traces newest first; fetches one more than `limit` to tell whether more exist. */
export async function listTraces(sql: Sql, f: TraceFilter): Promise<{ items: ListingItem[]; hasMore: boolean }> {
  const conds = [sql`true`];
  if (f.agentIds) conds.push(sql`agent_id = any(${f.agentIds}::uuid[])`);
  if (f.from) conds.push(sql`txn_time >= ${f.from}`);
  if (f.to) conds.push(sql`txn_time <= ${f.to}`);
  if (f.olderThan) conds.push(sql`txn_time < ${f.olderThan}`);
  if (f.statuses) conds.push(sql`status = any(${f.statuses as string[]}::text[])`);
  if (f.needsAttention) {
    conds.push(sql`(status = any(${ATTENTION_STATUSES as string[]}::text[])
                    or (status = 'SHADOW_HALTED' and verification_status = any(${ATTENTION_VERIFICATIONS as string[]}::text[])))`);
  }
  const where = conds.reduce((acc, c) => sql`${acc} and ${c}`);
  const rows = await sql<ListingItem[]>`
    select trace_id, agent_id, status, verification_status, action, asset, notional, notional_currency, txn_time, reasoning_hash, final_proof
    from traces where ${where}
    order by txn_time desc, trace_id desc
    limit ${f.limit + 1}`;
  return { items: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
}

/**
 * Turns every unbound trace whose verification is still Pending and whose txn_time is before `cutoff` into
 * Expired (a PENDING listing status becomes EXPIRED; a SHADOW_HALTED one stays). Returns how many.
 */
export async function expirePending(sql: Sql, cutoff: Date): Promise<number> {
  const rows = await sql`
    update traces set verification_status = 'Expired',
                      status = case when status = 'PENDING' then 'EXPIRED' else status end,
                      expired_at = clock_timestamp()
    where verification_status = 'Pending' and final_proof is null and txn_time < ${cutoff}
    returning trace_id`;
  return rows.length;
}
