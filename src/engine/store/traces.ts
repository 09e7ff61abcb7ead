/**
 * Traces in the store: the sealed insert (with its idempotency record, atomically), the bind, listings,
 * reads and the expiry sweep. Listings are newest first by txn_time, then trace_id.
 */
import type { Sql } from 'postgres';
import { TradesealError } from '../../core/errors.js';
import type { TraceStatus, VerificationStatus } from '../../core/vocabulary.js';
import type { AuthorizeResponse } from './idempotency.js';
import { traceTimeOf } from '../../core/trace-id.js';
import type { SqlOrTx } from '../../store/transaction.js';

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
  /** The regulatory block and its salt encrypted under the agent's data key (then both above are null). */
  regulatory_enc: Buffer | null;
  policy_result: string;
  order_hash: string;
  response: AuthorizeResponse;
}

export type InsertOutcome = 'inserted' | 'duplicate' | 'replayed';

/**
 * What sealing one trace came to: an InsertOutcome; for a write that carried a message throttle, refused
 * because its agent's orders in the second (this one counted) exceed the limit, nothing written; for a write
 * that carried a guard, `stale` when the agent's facts changed, nothing written. A duplicate whose original
 * the statement saw (stored before it, or sealed earlier in it) comes with that original's order hash and
 * answer, so the caller answers it without reading it again.
 */
export type SealOutcome =
  InsertOutcome | { kind: 'rate_exceeded'; orders: number } | { kind: 'duplicate'; order_hash: string; response: AuthorizeResponse } | 'stale';

/** The outcome of a seal that carried neither a throttle nor a guard, which can only be an InsertOutcome. */
export function plainOutcome(outcome: SealOutcome | undefined): InsertOutcome {
  if (typeof outcome === 'object' && outcome.kind === 'duplicate') return 'duplicate';
  if (typeof outcome !== 'string' || outcome === 'stale')
    throw new TradesealError('internal', `a seal without a throttle or a guard came to ${JSON.stringify(outcome)}`);
  return outcome;
}

/**
 * The registry facts an order was judged by without reading the registry (src/engine/agent-cache.ts): the
 * sealing statement writes the order only if its agent is still Active, not erased, without an open-exposure
 * cap, with this max_notional and these allowed regimes, and the model version still approved; else `stale`.
 */
export interface SealGuard {
  model_id: string;
  model_hash_hex: string;
  max_notional: number;
  allowed_regimes: readonly string[] | null;
}

/** The message throttle a seal is judged by: at most `max` orders of the agent in the Unix second `second`. */
export interface SealRate {
  max: number;
  second: number;
}

/**
 * A trace to seal; with Layer 2, the heartbeat sequence its insert spends (null: none); with the message
 * throttle, the limit the statement counts the order against before it writes anything (null or absent: none).
 */
export interface SealWrite {
  trace: NewTrace;
  heartbeatSequence: number | null;
  rate?: SealRate | null;
  guard?: SealGuard | null;
}

/**
 * Whether `w` may be sealed in one statement after `earlier`, writes of its agent in submission order, with the
 * answer it would get alone: its heartbeat sequence (if any) is above every one of theirs, and it carries their
 * client_order_id only when it carries neither a heartbeat nor the throttle (a retry sent at once, as the IRL
 * Engine's load script does: it is then `duplicate` when an earlier one is sealed, else judged on its own terms,
 * as alone, since it counts and spends nothing).
 */
export function maySealTogether(w: SealWrite, earlier: readonly SealWrite[]): boolean {
  const seq = w.heartbeatSequence;
  const plain = seq === null && (w.rate ?? null) === null;
  return earlier.every(
    (e) => (plain || e.trace.client_order_id !== w.trace.client_order_id) && (seq === null || e.heartbeatSequence === null || e.heartbeatSequence < seq),
  );
}

/**
 * Seals the traces in one statement (one round trip, one implicit transaction), each row on its own terms:
 * with a guard, first the registry facts the order was judged by are checked (`stale` when any changed: nothing
 * written); with the message throttle, the order is counted in its agent's second (agent_order_rate) and, over
 * the limit, nothing else is written; with Layer 2, then the heartbeat's replay mark (accepted only when its
 * sequence_id is greater than the last one accepted from the agent: a conditional upsert, so of N concurrent
 * requests carrying one heartbeat exactly one passes), then the idempotency record, then the trace. Per row, in
 * the writes' order: `stale`; `rate_exceeded` with the count: over the throttle, nothing written but the count;
 * `replayed`: the heartbeat was spent, nothing written; `duplicate`: a concurrent request took (agent_id,
 * client_order_id) first, nothing written; `inserted`. A heartbeat is spent only by an order that is sealed.
 * The throttle counts what a registry read first would have counted: not an order whose heartbeat is spent,
 * nor a retry of an order already sealed.
 *
 * Several writes of one agent may share the statement, and each gets the answer it would get sealed alone, in
 * the writes' order, after the ones before it, provided (`maySealTogether`, which the group-commit queue of
 * ./batching.ts applies) their heartbeat sequences rise in that order and a write repeating an earlier one's
 * client_order_id carries neither heartbeat nor throttle. Then no earlier write can spend a later one's heartbeat
 * or change its count, and a repeated order is `duplicate` exactly when an earlier one is sealed, so each is judged against
 * the store as the statement finds it (the heartbeat marks locked first, so a concurrent commit is seen), and
 * the throttle's count of each is the agent's count in its second before the statement plus its own place
 * among the counted writes of that second: one upsert per agent and second adds them all. An agent's mark
 * becomes the highest sequence sealed. The rows travel as one JSON parameter.
 */
export async function insertTraces(sql: SqlOrTx, writes: readonly SealWrite[]): Promise<SealOutcome[]> {
  const rows = writes.map(({ trace: t, heartbeatSequence, rate, guard }, ord) => ({
    ord,
    seq: heartbeatSequence,
    rate_max: rate?.max ?? null,
    rate_second: rate?.second ?? null,
    guard_model_id: guard?.model_id ?? null,
    guard_model_hash: guard?.model_hash_hex ?? null,
    guard_max_notional: guard?.max_notional ?? null,
    guard_regimes: guard?.allowed_regimes ?? null,
    trace_id: t.trace_id,
    txn_time: t.txn_time.toISOString(),
    agent_id: t.agent_id,
    client_order_id: t.client_order_id,
    status: t.status,
    action: t.action,
    asset: t.asset,
    quantity: t.quantity,
    notional: t.notional,
    notional_currency: t.notional_currency,
    reasoning_hash: t.reasoning_hash,
    sealed: t.sealed,
    regulatory: t.regulatory,
    regulatory_salt: t.regulatory_salt?.toString('hex') ?? null,
    regulatory_enc: t.regulatory_enc?.toString('hex') ?? null,
    policy_result: t.policy_result,
    order_hash: t.order_hash,
    response: t.response,
  }));
  const result = await sql<
    Array<{
      ord: number;
      fresh: boolean;
      orders: number | null;
      within: boolean;
      marked: boolean;
      inserted: boolean;
      original_hash: string | null;
      original_response: AuthorizeResponse | null;
    }>
  >`
    with input as (
      select * from jsonb_to_recordset(${sql.json(rows as never)}) as x(
        ord int, seq bigint, rate_max int, rate_second bigint, guard_model_id text, guard_model_hash text,
        guard_max_notional double precision, guard_regimes jsonb, trace_id uuid, txn_time timestamptz, agent_id uuid,
        client_order_id text, status text, action text, asset text, quantity double precision, notional double precision,
        notional_currency text, reasoning_hash text, sealed text, regulatory jsonb, regulatory_salt text, regulatory_enc text,
        policy_result text, order_hash text, response jsonb)
    ), prior as (
      -- The batch's heartbeat marks, locked: the last sequence each agent spent, as committed now.
      select hm.agent_id, hm.last_sequence_id from heartbeat_marks hm
      where hm.agent_id = any (array(select distinct agent_id from input where seq is not null))
      order by hm.agent_id for update
    ), checked as (
      select i.*, (i.guard_model_id is null or exists (
        select 1 from agents a
        where a.agent_id = i.agent_id and a.status = 'Active' and a.erased_at is null and a.max_open_notional is null
          and a.max_notional = i.guard_max_notional
          and coalesce(to_jsonb(a.allowed_regimes), 'null') = coalesce(i.guard_regimes, 'null')
          and exists (select 1 from agent_models m
                      where m.agent_id = i.agent_id and m.model_id = i.guard_model_id and m.model_hash_hex = i.guard_model_hash offset 0)
        offset 0)) as fresh,
        (i.seq is not null and exists (select 1 from prior p where p.agent_id = i.agent_id and p.last_sequence_id >= i.seq)) as spent,
        -- Each a probe by key per order (offset 0 keeps the planner from turning them into scans of whole tables).
        k.order_hash is not null as known, k.order_hash as known_hash, k.response as known_response
      from input i
      left join lateral (select ti.order_hash, ti.response from trace_idempotency ti
                         where ti.agent_id = i.agent_id and ti.client_order_id = i.client_order_id offset 0) k on true
    ), ranked as (
      -- The message throttle counts an order that is fresh, carries the limit, spends no spent heartbeat and is no retry.
      select c.*, row_number() over (partition by c.agent_id, c.rate_second, c.counts order by c.ord) as place,
             count(*) over (partition by c.agent_id, c.rate_second, c.counts) as together
      from (select c.*, (c.fresh and c.rate_max is not null and not c.spent and not c.known) as counts from checked c) c
    ), counted as (
      -- The throttle (migration 0024: an unlogged table): the agent's orders of the second, these ones added.
      insert into agent_order_rate (agent_id, second, orders)
      select agent_id, rate_second, count(*) from ranked where counts group by agent_id, rate_second order by agent_id, rate_second
      on conflict (agent_id, second) do update set orders = agent_order_rate.orders + excluded.orders
      returning agent_id, second, orders
    ), judged as (
      select r.*, n.orders - r.together + r.place as orders, (not r.counts or n.orders - r.together + r.place <= r.rate_max) as within
      from ranked r left join counted n on r.counts and n.agent_id = r.agent_id and n.second = r.rate_second
    ), allowed as (
      select * from judged where fresh and within
    ), mark as (
      insert into heartbeat_marks (agent_id, last_sequence_id)
      select agent_id, max(seq) from allowed where seq is not null and not spent group by agent_id order by agent_id
      on conflict (agent_id) do update set last_sequence_id = excluded.last_sequence_id, accepted_at = now()
        where heartbeat_marks.last_sequence_id < excluded.last_sequence_id
      returning agent_id
    ), gate as (
      select * from allowed where seq is null or (not spent and agent_id in (select agent_id from mark))
    ), idem as (
      insert into trace_idempotency (agent_id, client_order_id, order_hash, trace_id, txn_time, response)
      -- Of two writes of one order in the batch, the first is sealed (the later one conflicts with it: duplicate).
      select agent_id, client_order_id, order_hash, trace_id, txn_time, response from gate order by agent_id, client_order_id, ord
      on conflict do nothing
      returning trace_id
    ), ins as (
      insert into traces (trace_id, txn_time, agent_id, client_order_id, status, verification_status, action, asset, quantity,
                          notional, notional_currency, reasoning_hash, sealed, regulatory, regulatory_salt, regulatory_enc, policy_result)
      select trace_id, txn_time, agent_id, client_order_id, status, 'Pending', action, asset, quantity, notional, notional_currency,
             reasoning_hash, sealed, regulatory, decode(regulatory_salt, 'hex'), decode(regulatory_enc, 'hex'), policy_result
      from gate where trace_id in (select trace_id from idem) order by ord
      returning trace_id
    ), queued as (
      -- The transparency log's leaf of each trace sealed here (migration 0023), in the order sealed.
      insert into log_queue (trace_id, agent_id, kind, data)
      select g.trace_id, g.agent_id, 'reasoning_hash', log_leaf(g.reasoning_hash)
      from gate g where g.trace_id in (select trace_id from ins) and log_leaf(g.reasoning_hash) is not null order by g.ord
    ), sealed as (
      select g.trace_id, g.agent_id, g.client_order_id, g.order_hash, g.response from gate g where g.trace_id in (select trace_id from ins)
    )
    -- A duplicate's original: the record stored before, or the order sealed earlier in this statement.
    select j.ord, j.fresh, j.orders, j.within,
           (j.seq is null or (not j.spent and j.agent_id in (select agent_id from mark))) as marked,
           j.trace_id in (select trace_id from sealed) as inserted,
           coalesce(j.known_hash, s.order_hash) as original_hash, coalesce(j.known_response, s.response) as original_response
    from judged j left join sealed s on s.agent_id = j.agent_id and s.client_order_id = j.client_order_id and s.trace_id <> j.trace_id
    order by j.ord`;
  return writes.map((_, i) => {
    const row = result[i];
    if (!row || row.ord !== i) throw new TradesealError('internal', `the sealing statement answered ${result.length} rows for ${writes.length} traces`);
    if (!row.fresh) return 'stale';
    if (!row.within) return { kind: 'rate_exceeded', orders: Number(row.orders) };
    if (!row.marked) return 'replayed';
    if (row.inserted) return 'inserted';
    // Taken by a concurrent request whose commit the statement did not see: the caller reads it.
    if (row.original_hash === null || row.original_response === null) return 'duplicate';
    return { kind: 'duplicate', order_hash: row.original_hash, response: row.original_response };
  });
}

/** One trace sealed by itself, without the throttle or a guard (in the caller's transaction when `sql` is one). */
export async function insertTrace(sql: SqlOrTx, t: NewTrace, heartbeatSequence: number | null): Promise<InsertOutcome> {
  const [outcome] = await insertTraces(sql, [{ trace: t, heartbeatSequence }]);
  return plainOutcome(outcome);
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
  regulatory_enc: Buffer | null;
  /** When the agent's personal data were erased (src/engine/ops/erase.ts). */
  erased_at: Date | null;
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

/**
 * The month partition of the traces table a txn_time falls in, by `ensure_trace_partitions`' naming
 * (migration 0002): `traces_y2026m11`.
 */
export function monthPartition(at: Date): string {
  return `traces_y${String(at.getUTCFullYear()).padStart(4, '0')}m${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** A table name the statements below may interpolate: the parent or one of its partitions, nothing else. */
const PARTITION = /^traces(_[a-z0-9]+)*$/;
const tableName = (name: string): string => {
  if (!PARTITION.test(name)) throw new TradesealError('internal', `not a traces partition: ${name}`);
  return name;
};

/** Postgres' "relation does not exist": a month whose partition was never created. */
const isUndefinedTable = (err: unknown): boolean => (err as { code?: string }).code === '42P01';

/**
 * Reads by (trace_id, txn_time) from the one partition an id names (../../core/trace-id.ts), so the statement plans and
 * locks that partition alone, whatever the number of months stored (a statement on the parent table locks
 * every partition and its indexes at each execution). Returns the rows found by id; an id not found there
 * (a month whose partition did not exist when the trace was sealed keeps it in the default partition) is for
 * the caller to look up in the parent table.
 */
async function readInPartitions<R extends { trace_id: string }>(
  sql: Sql,
  columns: string,
  keys: ReadonlyArray<{ id: string; at: Date }>,
): Promise<Map<string, R & { part: string }>> {
  const found = new Map<string, R & { part: string }>();
  const byPart = new Map<string, Array<{ id: string; at: Date }>>();
  for (const k of keys) {
    const part = monthPartition(k.at);
    byPart.set(part, [...(byPart.get(part) ?? []), k]);
  }
  await Promise.all(
    [...byPart].map(async ([part, ks]) => {
      try {
        const rows = await sql.unsafe<Array<R & { part: string }>>(
          `
        select t.*, '${tableName(part)}' as part from unnest($1::uuid[], $2::timestamptz[]) as k(id, at)
        cross join lateral (select ${columns} from ${tableName(part)} where trace_id = k.id and txn_time = k.at) t`,
          [ks.map((k) => k.id), ks.map((k) => k.at.toISOString())] as never[],
        );
        for (const row of rows) found.set(row.trace_id, row);
      } catch (err) {
        if (!isUndefinedTable(err)) throw err;
      }
    }),
  );
  return found;
}

/**
 * A trace by id. An id names its txn_time (../../core/trace-id.ts), so the read probes one partition; an
 * id of another version, or one not found in its month's partition, is looked up in every partition.
 */
export async function getTrace(sql: Sql, traceId: string): Promise<TraceRow | null> {
  const at = traceTimeOf(traceId);
  if (at) {
    const hit = (await readInPartitions<TraceRow>(sql, '*', [{ id: traceId, at }])).get(traceId.toLowerCase());
    if (hit) {
      const { part: _part, ...row } = hit;
      return row as TraceRow;
    }
  }
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

/** What a bind reads of a trace, and what it answers with. */
export type BindRow = Pick<
  TraceRow,
  | 'trace_id'
  | 'txn_time'
  | 'agent_id'
  | 'status'
  | 'verification_status'
  | 'action'
  | 'asset'
  | 'quantity'
  | 'reasoning_hash'
  | 'final_proof'
  | 'exchange_tx_id'
  | 'execution_status'
  | 'execution_time'
  | 'divergence_reason'
> & {
  /** Set by a bind that resolved the ORPHAN trace of its execution (the drop copy came first): that trace's id. */
  resolved_orphan?: string | null;
};

export type BindOutcome = { kind: 'bound'; trace: BindRow } | { kind: 'not_found' } | { kind: 'already_bound'; trace: BindRow };

const BIND_COLUMNS =
  'trace_id, txn_time, agent_id, status, verification_status, action, asset, quantity, reasoning_hash, final_proof, exchange_tx_id, execution_status, execution_time, divergence_reason';

/** A bind's read of a trace: the row and the table it is stored in (its partition). */
export type BindRead = BindRow & { part: string };

/**
 * What binds read, for several traces at once: one statement per month partition the ids name (one, as a
 * rule), one index probe per trace; ids that name no time, or are not in their month's partition, are read
 * one by one in every partition. One answer per id, in order, null for a trace that does not exist.
 */
export async function readForBind(sql: Sql, traceIds: readonly string[]): Promise<Array<BindRead | null>> {
  const timed: Array<{ id: string; at: Date }> = [];
  for (const id of traceIds) {
    const at = traceTimeOf(id);
    if (at) timed.push({ id, at });
  }
  const found = timed.length > 0 ? await readInPartitions<BindRow>(sql, BIND_COLUMNS, timed) : new Map<string, BindRead>();
  return Promise.all(
    traceIds.map(async (id) => {
      const hit = found.get(id.toLowerCase());
      if (hit) return hit;
      const [row] = await sql.unsafe<BindRead[]>(`select ${BIND_COLUMNS}, tableoid::regclass::text as part from traces where trace_id = $1`, [id]);
      return row ?? null;
    }),
  );
}

/** A bind's update: applied only if the trace is still unbound and in the state its decision saw. */
export interface BindWrite {
  trace_id: string;
  txn_time: Date;
  /** The table the trace was read from (its partition). */
  part: string;
  /** The listing and verification status the decision saw. */
  seen: Pick<BindRow, 'status' | 'verification_status'>;
  update: BindUpdate;
}

/**
 * Applies binds with one statement per partition (one, as a rule: one round trip, one commit), each on its
 * own terms: a row is updated only if it is still unbound and in the state its decision saw; the answer is the
 * bound row, or null where the condition failed (a concurrent bind or the sweeper came first: the caller reads
 * again). The statement names the partition the trace was read from and finds the rows by primary key, so it
 * plans, locks and probes that partition alone, however much history is stored. The writes must name
 * distinct traces; the group-commit queue forms its batches so.
 */
export async function applyBinds(sql: Sql, writes: readonly BindWrite[]): Promise<Array<BindRow | null>> {
  const out: Array<BindRow | null> = writes.map(() => null);
  const byPart = new Map<string, number[]>();
  writes.forEach((w, i) => byPart.set(w.part, [...(byPart.get(w.part) ?? []), i]));
  await Promise.all(
    [...byPart].map(async ([part, indexes]) => {
      const group = indexes.map((i) => writes[i] as BindWrite);
      try {
        await applyInPartition(sql, part, group, indexes, out);
      } catch (err) {
        // A partition that does not exist holds no trace to update: each write's condition failed (null).
        if (!isUndefinedTable(err)) throw err;
      }
    }),
  );
  return out;
}

async function applyInPartition(sql: Sql, part: string, group: readonly BindWrite[], indexes: readonly number[], out: Array<BindRow | null>): Promise<void> {
  const rows = group.map(({ trace_id, txn_time, seen, update: u }, ord) => ({
    ord,
    trace_id,
    txn_time: txn_time.toISOString(),
    seen_status: seen.status,
    seen_verification: seen.verification_status,
    status: seen.status === 'SHADOW_HALTED' ? 'SHADOW_HALTED' : u.verification_status.toUpperCase(),
    verification_status: u.verification_status,
    exchange_tx_id: u.exchange_tx_id,
    execution_status: u.execution_status,
    execution_time: u.execution_time.toISOString(),
    executed_asset: u.executed_asset,
    executed_quantity: u.executed_quantity,
    executed_side: u.executed_side,
    execution_price: u.execution_price,
    divergence_reason: u.divergence_reason,
    final_proof: u.final_proof,
  }));
  const times = group.map((w) => w.txn_time.getTime());
  // The final proof of each trace bound here is queued for the transparency log in the same statement
  // (migration 0023); the update's condition (final_proof is null) makes it the trace's first.
  const bound = await sql.unsafe<Array<BindRow & { ord: number }>>(
    `
    with upd as (
    update ${tableName(part)} t set
      status = u.status, verification_status = u.verification_status, exchange_tx_id = u.exchange_tx_id,
      execution_status = u.execution_status, execution_time = u.execution_time, executed_asset = u.executed_asset,
      executed_quantity = u.executed_quantity, executed_side = u.executed_side, execution_price = u.execution_price,
      divergence_reason = u.divergence_reason, final_proof = u.final_proof, bound_at = clock_timestamp()
    from jsonb_to_recordset($1::jsonb) as u(
      ord int, trace_id uuid, txn_time timestamptz, seen_status text, seen_verification text, status text, verification_status text,
      exchange_tx_id text, execution_status text, execution_time timestamptz, executed_asset text, executed_quantity double precision,
      executed_side text, execution_price double precision, divergence_reason text, final_proof text)
    where t.txn_time >= $2 and t.txn_time <= $3 and t.trace_id = any($4::uuid[])
      and t.trace_id = u.trace_id and t.txn_time = u.txn_time and t.final_proof is null
      and t.status = u.seen_status and t.verification_status = u.seen_verification
    returning u.ord, ${BIND_COLUMNS.split(', ')
      .map((c) => `t.${c}`)
      .join(', ')}
    ), queued as (
      insert into log_queue (trace_id, agent_id, kind, data)
      select trace_id, agent_id, 'final_proof', log_leaf(final_proof) from upd where log_leaf(final_proof) is not null order by ord
    ), claimed as (
      -- The execution's claim (migration 0030): a bind's, or, when the drop copy came first and made it an ORPHAN,
      -- that orphan's claim resolved by this trace. On the key, so a drop copy committing at the same instant
      -- either waits for this statement and finds the bind, or is waited for and resolved (one trace either way).
      -- Keys in order (one lock order with the drop copy's claims, which JavaScript sorts by code unit: byte order
      -- for the printable ASCII of an exchange_tx_id, so "C" here, whatever the database's collation), each once
      -- (two binds of one execution here).
      insert into orphan_executions (exchange_tx_id, trace_id, txn_time, agent_id, kind)
      select distinct on (exchange_tx_id collate "C") exchange_tx_id, trace_id, txn_time, agent_id, 'bound' from upd
      order by exchange_tx_id collate "C", trace_id
      on conflict (exchange_tx_id) do update set resolved_by = excluded.trace_id, resolved_txn_time = excluded.txn_time, resolved_at = clock_timestamp()
        where orphan_executions.kind = 'orphan' and orphan_executions.resolved_by is null and orphan_executions.agent_id = excluded.agent_id
      returning exchange_tx_id, kind, trace_id, resolved_by
    )
    select upd.*, c.trace_id as resolved_orphan from upd
    left join claimed c on c.kind = 'orphan' and c.exchange_tx_id = upd.exchange_tx_id and c.resolved_by = upd.trace_id`,
    [sql.json(rows as never), new Date(Math.min(...times)).toISOString(), new Date(Math.max(...times)).toISOString(), group.map((w) => w.trace_id)] as never[],
  );
  for (const { ord, ...row } of bound) out[indexes[ord] as number] = row as BindRow;
}

/** How a process reads and writes binds: batched (./batching.ts) or, in a caller's transaction, directly. */
export interface BindStore {
  read(traceId: string): Promise<BindRead | null>;
  write(w: BindWrite): Promise<BindRow | null>;
}

/**
 * Binds optimistically, without an explicit transaction: read the trace, decide, then update only if it is
 * still unbound and in the state the decision saw. Of N concurrent binds of one trace exactly one update
 * matches (the others wait on its row lock, re-check the condition and match nothing); a loser reads again and
 * finds the trace bound (409). A trace the sweeper expired in between is decided again. `known`: the trace as
 * this process sealed it (../sealed-cache.ts), decided without the read; when its update matches nothing, the
 * trace is read and decided again.
 */
export async function bindTrace(store: BindStore, traceId: string, decide: (row: BindRow) => BindUpdate, known: BindRead | null = null): Promise<BindOutcome> {
  if (known) {
    const bound = await store.write({ trace_id: known.trace_id, txn_time: known.txn_time, part: known.part, seen: known, update: decide(known) });
    if (bound) return { kind: 'bound', trace: bound };
  }
  for (let attempt = 0; attempt < 5; attempt++) {
    const row = await store.read(traceId);
    if (!row) return { kind: 'not_found' };
    if (row.final_proof !== null || row.status === 'ORPHAN') return { kind: 'already_bound', trace: row };
    const update = decide(row);
    const bound = await store.write({ trace_id: row.trace_id, txn_time: row.txn_time, part: row.part, seen: row, update });
    if (bound) return { kind: 'bound', trace: bound };
  }
  throw new TradesealError('conflict', `trace ${traceId} kept changing while it was being bound; retry the bind`);
}

/**
 * What needs an officer's attention: DIVERGENT, EXPIRED, MISMATCH and ORPHAN traces (the interface names the
 * first two; a side mismatch and an execution with no trace matter at least as much), and SHADOW_HALTED
 * traces whose verification came out Divergent, Expired or Mismatch (their listing status stays
 * SHADOW_HALTED, as decided, but they must not hide from the orphans listing). An ORPHAN trace that a later
 * bind of its execution resolved (orphan_executions.resolved_by) no longer needs attention, and is left out, once
 * the resolution's comparison is recorded and came out matched; a resolution not yet recorded, or divergent, stays.
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
  /** Keyset paging: only traces listed after this one (newest first), never an offset. */
  after?: { txn_time: Date; trace_id: string } | null;
  /** Only traces whose agent_id starts with it, or whose asset contains it (case-insensitive). */
  search?: string | null;
  limit: number;
}

/** `text` matched literally by LIKE: its wildcards and the escape character escaped. */
const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Lists traces newest first; fetches one more than `limit` to tell whether more exist. */
export async function listTraces(sql: Sql, f: TraceFilter): Promise<{ items: ListingItem[]; hasMore: boolean }> {
  const conds = [sql`true`];
  if (f.agentIds) conds.push(sql`agent_id = any(${f.agentIds}::uuid[])`);
  if (f.from) conds.push(sql`txn_time >= ${f.from}`);
  if (f.to) conds.push(sql`txn_time <= ${f.to}`);
  if (f.olderThan) conds.push(sql`txn_time < ${f.olderThan}`);
  if (f.statuses) conds.push(sql`status = any(${f.statuses as string[]}::text[])`);
  if (f.after) conds.push(sql`(txn_time, trace_id) < (${f.after.txn_time}, ${f.after.trace_id}::uuid)`);
  if (f.search) {
    const text = escapeLike(f.search);
    conds.push(sql`(agent_id::text like ${`${text.toLowerCase()}%`} or asset ilike ${`%${text}%`})`);
  }
  if (f.needsAttention) {
    conds.push(sql`(status = any(${ATTENTION_STATUSES as string[]}::text[])
                    or (status = 'SHADOW_HALTED' and verification_status = any(${ATTENTION_VERIFICATIONS as string[]}::text[])))`);
    // An ORPHAN whose execution a bind then claimed is resolved (kept, no longer in need of an officer) once the
    // resolution's comparison is recorded and found nothing: until then, or when it found differences, it stays.
    conds.push(sql`not (status = 'ORPHAN' and exists (select 1 from orphan_executions o where o.trace_id = traces.trace_id
      and o.resolved_by is not null and o.resolution_recorded_at is not null and o.differences is null))`);
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
 *
 * The rows are locked in trace order first, the order the batched binds take theirs (./batching.ts), so a sweep
 * and binds racing over the same traces wait for each other instead of deadlocking; a trace bound meanwhile is
 * no longer Pending when its lock is granted, and is left as it is.
 */
export async function expirePending(sql: Sql, cutoff: Date): Promise<number> {
  const rows = await sql`
    with due as (
      select trace_id, txn_time from traces
      where verification_status = 'Pending' and final_proof is null and txn_time < ${cutoff}
      order by trace_id for update
    )
    update traces t set verification_status = 'Expired',
                        status = case when t.status = 'PENDING' then 'EXPIRED' else t.status end,
                        expired_at = clock_timestamp()
    from due where t.trace_id = due.trace_id and t.txn_time = due.txn_time
    returning t.trace_id`;
  return rows.length;
}
