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
import { sha256Hex } from '../../crypto/hash.js';
import { transactionOn } from '../../store/advisory-lock.js';
import { appendAuditMany, type AuditInput } from '../audit/append.js';
import type { Policy } from '../policy/policy.js';
import { sealOrphan } from '../reconcile/orphan.js';
import type { DropCopyExecution } from '../reconcile/schema.js';
import { boundTraces, knownOrphans, recordOrphans, type KnownExecution } from '../reconcile/store.js';
import { newTraceId } from '../trace/id.js';
import type { InboundFill, InboundReject } from './inbound.js';

export type FillOutcome = 'matched' | 'orphan' | 'already_known' | 'duplicate';

export interface AppliedFill {
  exec_id: string;
  seq: number;
  outcome: FillOutcome;
  /** The trace the fill is reconciled with; null for a duplicate. */
  trace_id: string | null;
  receivedAt: Date;
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
}

/** Another instance took the session (its epoch moved): this one must stop writing at once. */
export class DropCopyFencedError extends Error {
  constructor(readonly sessionKey: string, readonly epoch: number) {
    super(`drop-copy session ${sessionKey} is no longer held at epoch ${epoch}: another instance took it (or its row is gone); nothing of this batch was applied`);
    this.name = 'DropCopyFencedError';
  }
}

export function applyBatch(conn: postgres.ReservedSql, batch: DropCopyBatch): Promise<AppliedBatch> {
  return transactionOn(conn, (tx) => applyIn(tx as unknown as Sql, batch));
}

async function applyIn(tx: Sql, batch: DropCopyBatch): Promise<AppliedBatch> {
  // The statements are sent in as few round trips as their dependencies allow (postgres.js pipelines the queries
  // of one connection that are pending at once; they run in the order sent): a batch waits for the server, and
  // for its turn on the event loop, once per round trip. First the fenced update with the two reads the
  // reconciliation needs (reads only: if the fence fails, the transaction rolls back).
  const ids = [...new Set(batch.fills.map((f) => f.execution.exchange_tx_id))];
  const [fenced, recorded, bound, refusedBefore] = await Promise.all([
    tx`
      update dropcopy_sessions
      set next_target_seq = ${batch.watermark}, last_inbound_at = greatest(last_inbound_at, ${batch.lastInboundAt}::timestamptz), updated_at = now()
      where session_key = ${batch.sessionKey} and epoch = ${batch.epoch}`,
    recordedExecIds(tx, ids),
    boundTraces(tx, ids),
    rejectsRecorded(tx, batch.sessionKey, batch.rejects),
  ]);
  if (fenced.count === 0) throw new DropCopyFencedError(batch.sessionKey, batch.epoch);
  const rejects = freshRejects(batch.rejects, refusedBefore);

  const fills = await reconcileFills(tx, batch, recorded, bound);
  const fresh = fills.filter((f) => f.applied.outcome !== 'duplicate');
  const rejectIds = rejects.map(() => randomUUID());
  const audit: AuditInput[] = [
    ...fresh.map(({ fill, applied }): AuditInput => ({
      actor: batch.actor, action: 'dropcopy.fill', target_id: applied.trace_id,
      details: {
        session: batch.sessionKey, exec_id: applied.exec_id, seq: fill.seq, poss_dup: fill.possDup, outcome: applied.outcome, trace_id: applied.trace_id,
        asset: fill.execution.asset, side: fill.execution.side, quantity: fill.execution.quantity, price: fill.execution.price,
      },
    })),
    ...rejects.map((r, i): AuditInput => ({
      actor: batch.actor, action: 'dropcopy.reject', target_id: null,
      details: {
        session: batch.sessionKey, reject_id: rejectIds[i], seq: r.seq, msg_type: r.msgType, answer: r.answer,
        reason_code: r.reasonCode, ref_tag: r.refTag, reason: r.reason, raw_sha256: sha256Hex(r.raw),
      },
    })),
  ];
  // The executions' rows, sent together with the audit append's lock and its read of the chain's head.
  const [, entries] = await Promise.all([insertExecutions(tx, batch, fresh), appendAuditMany(tx, audit)]);
  const rejectEntries = entries.slice(fresh.length);
  if (rejects.length > 0) {
    const rows = rejects.map((r, i) => ({
      id: rejectIds[i], session_key: batch.sessionKey, seq: r.seq, msg_type: r.msgType, received_at: r.receivedAt, answer: r.answer,
      reason_code: r.reasonCode, ref_tag: r.refTag, reason: r.reason, raw: r.raw, audit_entry_id: rejectEntries[i]?.id,
    }));
    await tx`insert into dropcopy_rejects ${tx(rows, 'id', 'session_key', 'seq', 'msg_type', 'received_at', 'answer', 'reason_code', 'ref_tag', 'reason', 'raw', 'audit_entry_id')}`;
  }
  return {
    fills: fills.map((f) => f.applied),
    rejects: rejects.map((r, i) => ({ id: rejectIds[i] as string, answer: r.answer, audit_entry_id: rejectEntries[i]?.id as string })),
  };
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
  return `${seq}|${raw.split('|').filter((field) => !RESEND_TAGS.has(field.slice(0, field.indexOf('=')))).join('|')}`;
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
  applied: AppliedFill;
}

/**
 * The exec_ids among `ids` that an earlier batch recorded: one probe of the primary key per id, whatever the
 * statistics say. As `exec_id = any($1)`, a generic plan made while the table was nearly empty scanned it and
 * compared every row with every id: 46 ms a batch of 500 at 10,000 rows, growing with every batch. `offset 0`
 * keeps the subquery from being flattened into a join the planner could again make a scan.
 */
async function recordedExecIds(tx: Sql, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await tx<Array<{ exec_id: string }>>`
    select e.exec_id from unnest(${ids}::text[]) as u(id)
    cross join lateral (select exec_id from dropcopy_executions where exec_id = u.id offset 0) e`;
  return new Set(rows.map((r) => r.exec_id));
}

/** Records the fills applied (not duplicates) in dropcopy_executions. */
async function insertExecutions(tx: Sql, batch: DropCopyBatch, fresh: Reconciled[]): Promise<void> {
  if (fresh.length === 0) return;
  // Column arrays through unnest: one prepared statement for any batch size. The booleans go as text[] cast to
  // bool[] (postgres.js binds an array of booleans as one boolean, and a text cast straight to bool[] as false).
  const col = <T>(f: (r: Reconciled) => T): T[] => fresh.map(f);
  await tx`
    insert into dropcopy_executions (exec_id, session_key, seq, poss_dup, received_at, applied_at, outcome, trace_id)
    select u.exec_id, ${batch.sessionKey}, u.seq, u.poss_dup, u.received_at, ${batch.now}, u.outcome, u.trace_id
    from unnest(${col((r) => r.applied.exec_id)}::text[], ${col((r) => r.fill.seq)}::int[], ${col((r) => String(r.fill.possDup))}::text[]::bool[],
      ${col((r) => r.fill.receivedAt.toISOString())}::timestamptz[], ${col((r) => r.applied.outcome)}::text[], ${col((r) => r.applied.trace_id)}::uuid[])
      as u(exec_id, seq, poss_dup, received_at, outcome, trace_id)`;
}

/**
 * Each fill of the batch with its outcome, in the batch's order, given the exec_ids recorded before and the traces
 * bound to them; records (seals, claims and inserts) the orphans among the new ones.
 */
async function reconcileFills(tx: Sql, batch: DropCopyBatch, recorded: Set<string>, bound: KnownExecution[]): Promise<Reconciled[]> {
  const firsts = new Map<string, DropCopyExecution>();
  for (const f of batch.fills) {
    const id = f.execution.exchange_tx_id;
    if (!recorded.has(id) && !firsts.has(id)) firsts.set(id, normalized(f.execution));
  }
  const traceOf = new Map<string, { outcome: Exclude<FillOutcome, 'duplicate'>; trace_id: string }>();
  for (const b of bound) if (firsts.has(b.exchange_tx_id)) traceOf.set(b.exchange_tx_id, { outcome: 'matched', trace_id: b.trace_id });
  const orphans = [...firsts.values()]
    .filter((e) => !traceOf.has(e.exchange_tx_id))
    .map((e) => sealOrphan(e, newTraceId(batch.now.getTime()), batch.now, batch.policy));
  const claimed = await recordOrphans(tx, orphans);
  for (const o of orphans) if (claimed.has(o.execution.exchange_tx_id)) traceOf.set(o.execution.exchange_tx_id, { outcome: 'orphan', trace_id: o.trace_id });
  const earlier = orphans.filter((o) => !claimed.has(o.execution.exchange_tx_id)).map((o) => o.execution.exchange_tx_id);
  if (earlier.length > 0) {
    for (const k of await knownOrphans(tx, earlier)) traceOf.set(k.exchange_tx_id, { outcome: 'already_known', trace_id: k.trace_id });
  }

  const applied = new Set<string>();
  return batch.fills.map((fill) => {
    const id = fill.execution.exchange_tx_id;
    const base = { exec_id: id, seq: fill.seq, receivedAt: fill.receivedAt };
    if (recorded.has(id) || applied.has(id)) return { fill, applied: { ...base, outcome: 'duplicate', trace_id: null } };
    applied.add(id);
    const found = traceOf.get(id);
    // Claimed by no one yet not claimable: only a broken store gets here; better to stop than to drop the fill.
    if (found === undefined) throw new Error(`drop-copy fill ${id} is neither bound, nor claimed as an orphan, nor a known orphan`);
    return { fill, applied: { ...base, ...found } };
  });
}

/** Agent ids in the store's lowercase form, as a reconciliation stores them. */
const normalized = (e: DropCopyExecution): DropCopyExecution => ({ ...e, agent_id: e.agent_id.toLowerCase() });
