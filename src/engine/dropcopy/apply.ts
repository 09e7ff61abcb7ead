/**
 * Applying one batch of the FIX drop-copy session, in ONE transaction on the connection that holds the session's
 * advisory lock, so that a batch is applied entirely or not at all, and the watermark moves with it:
 *
 * 1. the session's row is updated first, fenced on the epoch: `next_target_seq` (the watermark), `last_inbound_at`.
 *    No row updated means another instance took the session (raised the epoch): `DropCopyFencedError`, rolled
 *    back. Updating first also locks the row, so a newer owner's epoch bump waits for this batch, or this batch
 *    for the bump, and never interleaves with it;
 * 2. each fill whose exec_id (ExecID 17) is already in dropcopy_executions, or earlier in the batch, is a
 *    `duplicate` and changes nothing; the others are reconciled by the rules of `POST /engine/admin/reconcile`
 *    (src/engine/reconcile/): `matched` when bind-execution bound a trace to it, else an ORPHAN trace is created
 *    (`orphan`), or the one an earlier reconciliation created is named (`already_known`); each is recorded in
 *    dropcopy_executions;
 * 3. each refused message is recorded in dropcopy_rejects;
 * 4. last (the audit chain's lock is held until commit), one audit entry per fill applied ('dropcopy.fill',
 *    target the trace) and per refused message ('dropcopy.reject', binding what was received by its SHA-256:
 *    the text itself, which may be long, is in dropcopy_rejects), in one append.
 */
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import type { Sql } from 'postgres';
import { sha256Hex } from '../../core/crypto/hash.js';
import { transactionOn } from '../../store/advisory-lock.js';
import { appendAuditMany, type AuditInput } from '../audit/append.js';
import type { Policy } from '../policy/policy.js';
import { DEFAULT_COMPARISON_SETTINGS, type Difference } from '../reconcile/compare.js';
import { contentOf, tradingDay, type FillContent } from '../reconcile/identity.js';
import { sealOrphan } from '../reconcile/orphan.js';
import { BatchSettler, identityKey, type BatchFill, type RecordedFill, type Settled } from '../reconcile/outcome.js';
import type { DropCopyExecution } from '../reconcile/schema.js';
import { linkedTraces, recordOrphans, type LinkedTrace, type LinkQuery } from '../reconcile/store.js';
import { newTraceId } from '../../core/trace-id.js';
import type { InboundFill, InboundReject } from './inbound.js';
import type { FillOutcome } from './outcome.js';

/** BIND_QUANTITY_TOLERANCE's default: the relative tolerance on quantities when the batch names none. */
export const DEFAULT_QUANTITY_TOLERANCE = DEFAULT_COMPARISON_SETTINGS.tolerance;

export type { FillOutcome };

export interface AppliedFill {
  exec_id: string;
  seq: number;
  /** The fill's trading day (YYYY-MM-DD): with the session and the ExecID, its identity. */
  trade_date: string;
  outcome: FillOutcome;
  /** The trace the fill is reconciled with; for a duplicate or a conflict, the first fill's (null when unknown). */
  trace_id: string | null;
  receivedAt: Date;
  /** What differs from the authorization or the bind (divergent); empty when matched. */
  differences?: Difference[];
  /** The dropcopy_conflicts row of a conflict. */
  conflict_id?: string;
}

export interface AppliedReject {
  id: string;
  answer: InboundReject['answer'];
  audit_entry_id: string;
}

export interface AppliedBatch {
  fills: AppliedFill[];
  rejects: AppliedReject[];
}

export interface DropCopyBatch {
  sessionKey: string;
  epoch: number;
  fills: InboundFill[];
  rejects: InboundReject[];
  /** The lowest inbound seqnum not handled once this batch is applied: next_target_seq. */
  watermark: number;
  /** The last inbound message's instant, or null to leave last_inbound_at as it is. */
  lastInboundAt: Date | null;
  policy: Policy;
  /** The engine's clock: the txn_time of the ORPHAN traces and applied_at. */
  now: Date;
  /** The audit actor, `fix:<session_key>`. */
  actor: string;
  /** The relative tolerance on quantities of the three-way comparison (default DEFAULT_QUANTITY_TOLERANCE). */
  quantityTolerance?: number;
  /** TRACE_EXPIRY_MS: how long an authorization stands (default DEFAULT_COMPARISON_SETTINGS'). */
  traceExpiryMs?: number;
  /** HEARTBEAT_REPLAY_WINDOW_MS: the tolerance between the exchange's clock and the engine's (default DEFAULT_COMPARISON_SETTINGS'). */
  clockToleranceMs?: number;
}

/** Another instance took the session (its epoch moved): this one must stop writing at once. */
export class DropCopyFencedError extends Error {
  constructor(
    readonly sessionKey: string,
    readonly epoch: number,
  ) {
    super(
      `drop-copy session ${sessionKey} is no longer held at epoch ${epoch}: another instance took it (or its row is gone); nothing of this batch was applied`,
    );
    this.name = 'DropCopyFencedError';
  }
}

export function applyBatch(conn: postgres.ReservedSql, batch: DropCopyBatch): Promise<AppliedBatch> {
  return transactionOn(conn, (tx) => applyIn(tx, batch));
}

async function applyIn(tx: Sql, batch: DropCopyBatch): Promise<AppliedBatch> {
  // The statements are sent in as few round trips as their dependencies allow (postgres.js pipelines the queries
  // of one connection that are pending at once; they run in the order sent): a batch waits for the server, and
  // for its turn on the event loop, once per round trip. First the fenced update with the two reads the
  // reconciliation needs (reads only: if the fence fails, the transaction rolls back).
  const items = batchFills(batch.fills);
  const queries = linkQueries(items);
  const [fenced, recorded, links, refusedBefore] = await firstFault(
    Promise.allSettled([
      tx`
      update dropcopy_sessions
      set next_target_seq = ${batch.watermark}, last_inbound_at = greatest(last_inbound_at, ${batch.lastInboundAt}::timestamptz), updated_at = now()
      where session_key = ${batch.sessionKey} and epoch = ${batch.epoch}`,
      recordedFills(tx, batch.sessionKey, items),
      linkedTraces(tx, batch.sessionKey, queries),
      rejectsRecorded(tx, batch.sessionKey, batch.rejects),
    ]),
  );
  if (fenced.count === 0) throw new DropCopyFencedError(batch.sessionKey, batch.epoch);
  const rejects = freshRejects(batch.rejects, refusedBefore);

  const linkOf = new Map(queries.map((q, i) => [q.exchange_tx_id, links[i] ?? null]));
  const fills = await reconcileFills(tx, batch, items, recorded, linkOf);
  const fresh = fills.filter((f) => f.applied.outcome !== 'duplicate' && f.applied.outcome !== 'conflict');
  const conflicts = fills.filter((f) => f.applied.outcome === 'conflict');
  const rejectIds = rejects.map(() => randomUUID());
  const audit: AuditInput[] = [
    ...fresh.map(({ fill, applied }): AuditInput => ({
      actor: batch.actor,
      action: 'dropcopy.fill',
      target_id: applied.trace_id,
      details: {
        session: batch.sessionKey,
        exec_id: applied.exec_id,
        trade_date: applied.trade_date,
        seq: fill.seq,
        poss_dup: fill.possDup,
        outcome: applied.outcome,
        trace_id: applied.trace_id,
        asset: fill.execution.asset,
        side: fill.execution.side,
        quantity: fill.execution.quantity,
        price: fill.execution.price,
        ...(applied.outcome === 'divergent' ? { differences: applied.differences } : {}),
      },
    })),
    ...conflicts.map(({ fill, applied, settled }): AuditInput => ({
      actor: batch.actor,
      action: 'dropcopy.conflict',
      target_id: applied.trace_id,
      details: {
        session: batch.sessionKey,
        exec_id: applied.exec_id,
        trade_date: applied.trade_date,
        seq: fill.seq,
        poss_dup: fill.possDup,
        conflict_id: applied.conflict_id,
        trace_id: applied.trace_id,
        differences: settled.outcome === 'conflict' ? settled.conflicts : [],
      },
    })),
    ...rejects.map((r, i): AuditInput => ({
      actor: batch.actor,
      action: 'dropcopy.reject',
      target_id: null,
      details: {
        session: batch.sessionKey,
        reject_id: rejectIds[i],
        seq: r.seq,
        msg_type: r.msgType,
        answer: r.answer,
        reason_code: r.reasonCode,
        ref_tag: r.refTag,
        reason: r.reason,
        raw_sha256: sha256Hex(r.raw),
      },
    })),
  ];
  // The executions' rows, sent together with the audit append's lock and its read of the chain's head.
  const [, entries] = await Promise.all([insertExecutions(tx, batch, fresh), appendAuditMany(tx, audit)]);
  const conflictEntries = entries.slice(fresh.length, fresh.length + conflicts.length).map((e) => e.id);
  const rejectEntries = entries.slice(fresh.length + conflicts.length);
  await insertConflicts(tx, batch, conflicts, conflictEntries);
  if (rejects.length > 0) {
    const rows = rejects.map((r, i) => ({
      id: rejectIds[i],
      session_key: batch.sessionKey,
      seq: r.seq,
      msg_type: r.msgType,
      received_at: r.receivedAt,
      answer: r.answer,
      reason_code: r.reasonCode,
      ref_tag: r.refTag,
      reason: r.reason,
      raw: r.raw,
      audit_entry_id: rejectEntries[i]?.id,
    }));
    await tx`insert into dropcopy_rejects ${tx(rows, 'id', 'session_key', 'seq', 'msg_type', 'received_at', 'answer', 'reason_code', 'ref_tag', 'reason', 'raw', 'audit_entry_id')}`;
  }
  return {
    fills: fills.map((f) => f.applied),
    rejects: rejects.map((r, i) => ({ id: rejectIds[i] as string, answer: r.answer, audit_entry_id: rejectEntries[i]?.id as string })),
  };
}

/**
 * The values of statements pipelined in one transaction, or the fault of the one that failed: not the "current
 * transaction is aborted" (25P02) of those sent after it, whichever of their answers was handled first.
 */
async function firstFault<T extends readonly unknown[]>(settled: Promise<{ [K in keyof T]: PromiseSettledResult<T[K]> }>): Promise<T> {
  const results = (await settled) as readonly PromiseSettledResult<unknown>[];
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed.length > 0) throw (failed.find((r) => (r.reason as { code?: string } | null)?.code !== '25P02') ?? failed[0]!).reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/**
 * A refused message comes again when the exchange resends it (PossDupFlag 43=Y) after a gap: it is answered again,
 * but recorded and audited once. The rows already recorded for the resends' seqnums are read (the resends only:
 * an ordinary message's seqnum is new), and a resend is a repeat when one of them holds the same message: the same
 * fields apart from those a resend changes (its header's sending time, the flags, the length and the checksum).
 */
async function rejectsRecorded(tx: Sql, sessionKey: string, rejects: InboundReject[]): Promise<Array<{ seq: number; raw: string }>> {
  const seqs = [...new Set(rejects.flatMap((r) => (r.possDup === true && r.seq !== null ? [r.seq] : [])))];
  if (seqs.length === 0) return [];
  return tx<Array<{ seq: number; raw: string }>>`
    select r.seq, r.raw from unnest(${seqs}::int[]) as u(seq)
    cross join lateral (select seq, raw from dropcopy_rejects where session_key = ${sessionKey} and seq = u.seq offset 0) r`;
}

/** Tags a resend changes: BeginString's neighbours BodyLength and CheckSum, SendingTime, OrigSendingTime, PossDupFlag, PossResend. */
const RESEND_TAGS = new Set(['9', '10', '52', '122', '43', '97']);

/** A message's fields without those a resend changes, as one text to compare. */
function resendKey(seq: number | null, raw: string): string {
  return `${seq}|${raw
    .split('|')
    .filter((field) => !RESEND_TAGS.has(field.slice(0, field.indexOf('='))))
    .join('|')}`;
}

/** The refused messages to record: all but the resends of one recorded before (or earlier in the batch). */
function freshRejects(rejects: InboundReject[], before: Array<{ seq: number; raw: string }>): InboundReject[] {
  if (before.length === 0 && !rejects.some((r) => r.possDup === true)) return rejects;
  const seen = new Set(before.map((b) => resendKey(b.seq, b.raw)));
  return rejects.filter((r) => {
    if (r.seq === null) return true;
    const key = resendKey(r.seq, r.raw);
    if (r.possDup === true && seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

interface Reconciled {
  fill: InboundFill;
  item: BatchFill;
  applied: AppliedFill;
  settled: Settled;
}

/**
 * The fills recorded before with these identities (session, trading day, ExecID), with their fields: one probe of
 * the primary key per identity, whatever the statistics say. As `exec_id = any($1)`, a generic plan made while the
 * table was nearly empty scanned it and compared every row with every id: 46 ms a batch of 500 at 10,000 rows,
 * growing with every batch. `offset 0` keeps the subquery from being flattened into a join the planner could again
 * make a scan.
 */
async function recordedFills(tx: Sql, sessionKey: string, items: readonly BatchFill[]): Promise<Map<string, RecordedFill>> {
  const keys = [...new Map(items.map((i) => [identityKey(i.day, i.execution.exchange_tx_id), i])).values()];
  if (keys.length === 0) return new Map();
  const rows = await tx<Array<FillContent & { exec_id: string; trade_date: string; trace_id: string | null; execution_time: Date | null }>>`
    select e.exec_id, e.trade_date::text as trade_date, e.trace_id::text as trace_id, e.asset, e.side, e.quantity, e.price, e.notional_currency,
      e.agent_id::text as agent_id, e.client_order_id, e.order_id, e.execution_time
    from unnest(${keys.map((k) => k.day)}::date[], ${keys.map((k) => k.execution.exchange_tx_id)}::text[]) as u(day, id)
    cross join lateral (select * from dropcopy_executions where session_key = ${sessionKey} and trade_date = u.day and exec_id = u.id offset 0) e`;
  return new Map(
    rows.map((r) => [
      identityKey(r.trade_date, r.exec_id),
      {
        trace_id: r.trace_id,
        content: {
          asset: r.asset,
          side: r.side,
          quantity: r.quantity,
          price: r.price,
          notional_currency: r.notional_currency,
          agent_id: r.agent_id,
          client_order_id: r.client_order_id,
          order_id: r.order_id,
          execution_time: r.execution_time ? r.execution_time.toISOString() : null,
        },
      },
    ]),
  );
}

/** Records the fills applied (not duplicates nor conflicts) in dropcopy_executions, with their fields. */
async function insertExecutions(tx: Sql, batch: DropCopyBatch, fresh: Reconciled[]): Promise<void> {
  if (fresh.length === 0) return;
  // Column arrays through unnest: one prepared statement for any batch size. The booleans go as text[] cast to
  // bool[] (postgres.js binds an array of booleans as one boolean, and a text cast straight to bool[] as false).
  const col = <T>(f: (r: Reconciled) => T): T[] => fresh.map(f);
  const c = (r: Reconciled): FillContent => r.item.content;
  await tx`
    insert into dropcopy_executions (exec_id, session_key, trade_date, seq, poss_dup, received_at, applied_at, outcome, trace_id, asset, side, quantity, price,
      notional_currency, agent_id, client_order_id, order_id, execution_time, differences)
    select u.exec_id, ${batch.sessionKey}, u.trade_date, u.seq, u.poss_dup, u.received_at, ${batch.now}, u.outcome, u.trace_id, u.asset, u.side, u.quantity, u.price,
      u.currency, u.agent_id, u.client_order_id, u.order_id, u.execution_time, u.differences::jsonb
    from unnest(${col((r) => r.applied.exec_id)}::text[], ${col((r) => r.item.day)}::date[], ${col((r) => r.fill.seq)}::int[],
      ${col((r) => String(r.fill.possDup))}::text[]::bool[], ${col((r) => r.fill.receivedAt.toISOString())}::timestamptz[],
      ${col((r) => r.applied.outcome)}::text[], ${col((r) => r.applied.trace_id)}::uuid[], ${col((r) => c(r).asset)}::text[], ${col((r) => c(r).side)}::text[],
      ${col((r) => c(r).quantity)}::float8[], ${col((r) => c(r).price)}::float8[], ${col((r) => c(r).notional_currency)}::text[], ${col((r) => c(r).agent_id)}::uuid[],
      ${col((r) => c(r).client_order_id)}::text[], ${col((r) => c(r).order_id)}::text[], ${col((r) => c(r).execution_time)}::timestamptz[],
      ${col((r) => (r.applied.differences && r.applied.differences.length > 0 ? JSON.stringify(r.applied.differences) : null))}::text[])
      as u(exec_id, trade_date, seq, poss_dup, received_at, outcome, trace_id, asset, side, quantity, price, currency, agent_id, client_order_id, order_id,
        execution_time, differences)`;
}

/** Records the conflicts (a repeated identity with other fields) in dropcopy_conflicts, each naming its audit entry. */
async function insertConflicts(tx: Sql, batch: DropCopyBatch, conflicts: Reconciled[], entryIds: string[]): Promise<void> {
  if (conflicts.length === 0) return;
  const rows = JSON.stringify(
    conflicts.map((r, i) => ({
      id: r.applied.conflict_id,
      trade_date: r.item.day,
      exec_id: r.applied.exec_id,
      seq: r.fill.seq,
      poss_dup: r.fill.possDup,
      received_at: r.fill.receivedAt.toISOString(),
      trace_id: r.applied.trace_id,
      differences: r.settled.outcome === 'conflict' ? r.settled.conflicts : [],
      received: r.item.content,
      audit_entry_id: entryIds[i] ?? null,
    })),
  );
  await tx`
    insert into dropcopy_conflicts (id, session_key, trade_date, exec_id, seq, poss_dup, received_at, recorded_at, trace_id, differences, received, audit_entry_id)
    select u.id, ${batch.sessionKey}, u.trade_date, u.exec_id, u.seq, u.poss_dup, u.received_at, ${batch.now}, u.trace_id, u.differences, u.received, u.audit_entry_id
    from json_to_recordset(${rows}::text::json) as u(id uuid, trade_date date, exec_id text, seq int, poss_dup boolean, received_at timestamptz,
      trace_id uuid, differences jsonb, received jsonb, audit_entry_id uuid)`;
}

/**
 * Each fill of the batch with its outcome, in the batch's order, given the identities recorded before and the
 * trace of each ExecID (links, by exchange_tx_id); records (seals, claims and inserts) the orphans among the new
 * ones. An orphan's claim lost to a bind or a reconciliation committed meanwhile is looked up again and settled
 * by what claimed it.
 */
async function reconcileFills(
  tx: Sql,
  batch: DropCopyBatch,
  items: BatchFill[],
  recorded: Map<string, RecordedFill>,
  links: ReadonlyMap<string, LinkedTrace | null>,
): Promise<Reconciled[]> {
  const settler = new BatchSettler(recorded, {
    tolerance: batch.quantityTolerance ?? DEFAULT_QUANTITY_TOLERANCE,
    expiry_ms: batch.traceExpiryMs ?? DEFAULT_COMPARISON_SETTINGS.expiry_ms,
    clock_tolerance_ms: batch.clockToleranceMs ?? DEFAULT_COMPARISON_SETTINGS.clock_tolerance_ms,
  });
  const settled: Array<Settled | null> = items.map(
    (item) => settler.repeat(item) ?? settler.settle(item, links.get(item.execution.exchange_tx_id) ?? settler.orderLink(item)),
  );

  // The fills with no trace yet: one ORPHAN per ExecID, claimed in exchange_tx_id order (the order binds take).
  const unlinked = new Map<string, BatchFill>();
  items.forEach((item, i) => {
    if (settled[i] === null && !unlinked.has(item.execution.exchange_tx_id)) unlinked.set(item.execution.exchange_tx_id, item);
  });
  const orphans = [...unlinked.values()]
    .sort((a, b) => (a.execution.exchange_tx_id < b.execution.exchange_tx_id ? -1 : 1))
    .map((item) => sealOrphan(item.execution, newTraceId(batch.now.getTime()), batch.now, batch.policy));
  const claimed = await recordOrphans(tx, orphans);
  const orphanOf = new Map(orphans.filter((o) => claimed.has(o.execution.exchange_tx_id)).map((o) => [o.execution.exchange_tx_id, o.trace_id]));
  const lost = orphans.filter((o) => !claimed.has(o.execution.exchange_tx_id));
  const relinked = new Map<string, LinkedTrace | null>();
  if (lost.length > 0) {
    const queries = lost.map((o) => linkQueryOf(o.execution));
    (await linkedTraces(tx, batch.sessionKey, queries)).forEach((l, i) => relinked.set(queries[i]!.exchange_tx_id, l));
  }
  const out = items.map((item, i) => {
    const fill = batch.fills[i]!;
    const id = item.execution.exchange_tx_id;
    let s = settled[i] ?? null;
    if (s === null) {
      const orphan = orphanOf.get(id);
      if (orphan !== undefined) {
        s = settler.orphan(item, orphan);
        // The next fill of this ExecID (another trading day) finds the orphan as an earlier one would.
        orphanOf.delete(id);
        relinked.set(id, { ...ORPHAN_LINK, trace_id: orphan });
      } else s = settler.settle(item, relinked.get(id) ?? null);
    }
    // Claimed by no one yet not claimable: only a broken store gets here; better to stop than to drop the fill.
    if (s === null) throw new Error(`drop-copy fill ${id} is neither bound, nor claimed as an orphan, nor a known orphan`);
    const applied: AppliedFill = {
      exec_id: id,
      seq: fill.seq,
      receivedAt: fill.receivedAt,
      trade_date: item.day,
      outcome: s.outcome,
      trace_id: s.trace_id,
      ...(s.outcome === 'matched' || s.outcome === 'divergent' ? { differences: s.differences } : {}),
      ...(s.outcome === 'conflict' ? { conflict_id: randomUUID() } : {}),
    };
    return { fill, item, applied, settled: s };
  });
  // A repeat within the batch names the trace its first fill got, settled after it was read.
  for (const r of out)
    if ((r.applied.outcome === 'duplicate' || r.applied.outcome === 'conflict') && r.applied.trace_id === null) r.applied.trace_id = settler.firstTrace(r.item);
  return out;
}

/** An ORPHAN's link, for the fills after the one that recorded it. */
const ORPHAN_LINK: Omit<LinkedTrace, 'trace_id'> = {
  via: 'claim',
  orphan: true,
  txn_time: new Date(0),
  status: 'ORPHAN',
  agent_id: '',
  action: '',
  asset: '',
  quantity: 0,
  notional_currency: '',
  limit_price: null,
  exchange_tx_id: null,
  executed_asset: null,
  executed_side: null,
  executed_quantity: null,
  execution_price: null,
  filled_before: 0,
};

const linkQueryOf = (e: DropCopyExecution): LinkQuery => ({
  exchange_tx_id: e.exchange_tx_id,
  agent_id: e.agent_id,
  client_order_id: e.client_order_id ?? null,
  order_id: e.order_id ?? null,
});

/** The batch's fills as reconciliation reads them: agent ids lowercase, their trading day and their fields. */
function batchFills(fills: readonly InboundFill[]): BatchFill[] {
  return fills.map((f) => {
    const execution = normalized(f.execution);
    return { execution, day: tradingDay(execution), content: contentOf(execution) };
  });
}

/** The first fill of each ExecID in the batch, as the lookup of its trace. */
function linkQueries(items: readonly BatchFill[]): LinkQuery[] {
  const firsts = new Map<string, LinkQuery>();
  for (const i of items) if (!firsts.has(i.execution.exchange_tx_id)) firsts.set(i.execution.exchange_tx_id, linkQueryOf(i.execution));
  return [...firsts.values()];
}

/** Agent ids in the store's lowercase form, as a reconciliation stores them. */
const normalized = (e: DropCopyExecution): DropCopyExecution => ({ ...e, agent_id: e.agent_id.toLowerCase() });
