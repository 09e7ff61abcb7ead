/**
 * Reconciling the engine's traces with an exchange drop copy, for `POST /engine/admin/reconcile` and
 * `tradeseal engine reconcile FILE` alike, in one transaction:
 *
 * - an execution whose exchange_tx_id a trace was bound with (by bind-execution), or that names an authorized order
 *   (its agent's client_order_id), is compared with the authorization and the bind (./compare.ts): `matched`, or
 *   `divergent` with the fields that differ;
 * - one recorded as an orphan by an earlier reconciliation is `already_known`;
 * - any other becomes one ORPHAN trace (orphan.ts), `orphans_created`;
 * - a trace bound (by bind-execution) to an execution of the drop copy's agents within its window whose
 *   exchange_tx_id the drop copy does not list is `missing`: the engine holds a proof of an execution the
 *   exchange does not report. The window is `from`..`to` when given, else the drop copy's first..last
 *   execution_time (both inclusive); the agents are `agent_ids` when given, else those the drop copy names.
 *
 * One `reconcile` entry in the audit log records the counts, in the same transaction. Reconciling the same
 * drop copy again creates no trace (the exchange_tx_id of an orphan is a key, see orphan_executions), and
 * reports the same counts with the orphans as `already_known`; the audit log records the run again.
 * An execution bound by bind-execution while its drop copy is being reconciled may be both bound and an
 * orphan; the next reconciliation reports it as `matched`.
 */
import { newTraceId } from '../../core/trace-id.js';
import type { Sql } from 'postgres';
import { hashJson } from '../../core/crypto/hash.js';
import { validationError, type FieldError } from '../../core/errors.js';
import { withTransaction } from '../../store/transaction.js';
import { appendAudit } from '../audit/append.js';
import type { Policy } from '../policy/policy.js';
import { compareFill, type ComparisonSettings, type Difference } from './compare.js';
import { calendarDay } from './identity.js';
import { sealOrphan } from './orphan.js';
import type { DropCopyExecution, ReconcileRequest } from './schema.js';
import { forEachBoundInWindow, linkedTraces, recordOrphans, type KnownExecution, type LinkedTrace } from './store.js';

/** Executions handled per round trip. */
export const RECONCILE_BATCH = 1000;

export interface MissingExecution {
  trace_id: string;
  agent_id: string;
  exchange_tx_id: string;
  execution_time: string;
}

/** A matched execution that differs from its authorization or bind: the fields that differ (./compare.ts). */
export interface DivergentExecution extends KnownExecution {
  differences: Difference[];
}

export interface ReconcileReport {
  executions: number;
  window: { from: string; to: string };
  agent_ids: string[];
  drop_copy_hash: string;
  counts: { matched: number; divergent: number; orphans_created: number; already_known: number; missing: number };
  orphans_created: KnownExecution[];
  already_known: KnownExecution[];
  matched: KnownExecution[];
  divergent: DivergentExecution[];
  missing: MissingExecution[];
  audit_entry_id: string;
}

export interface ReconcileOptions {
  actor: string;
  policy: Policy;
  /** The engine's clock: the txn_time of the orphans. */
  now: Date;
  /** Where the drop copy came from, for the audit entry (`http`, or the file's name). */
  source: string;
  /** Called as executions are handled: `done` of `total`. */
  onProgress?: (done: number, total: number) => void;
  /** The comparison's settings: BIND_QUANTITY_TOLERANCE, TRACE_EXPIRY_MS, HEARTBEAT_REPLAY_WINDOW_MS. */
  comparison: ComparisonSettings;
}

export interface CheckedDropCopy {
  from: Date;
  to: Date;
  agentIds: string[];
}

/**
 * The rules across the rows of a drop copy the schema accepted, every broken one at once (`validation_failed`):
 * each exchange_tx_id once, instants a clock can show, a window that does not end before it starts, and an
 * explicit window for an empty drop copy.
 */
export function checkDropCopy(req: ReconcileRequest): CheckedDropCopy {
  const errors: FieldError[] = [];
  const firstRow = new Map<string, number>();
  req.executions.forEach((e, i) => {
    const first = firstRow.get(e.exchange_tx_id);
    if (first === undefined) firstRow.set(e.exchange_tx_id, i);
    else
      errors.push({ field: `executions[${i}].exchange_tx_id`, message: `repeats executions[${first}] (${e.exchange_tx_id}): each execution is listed once` });
    if (Number.isNaN(Date.parse(e.execution_time))) errors.push({ field: `executions[${i}].execution_time`, message: 'is not an instant a clock can show' });
    if (e.trade_date !== undefined && calendarDay(e.trade_date) === null)
      errors.push({ field: `executions[${i}].trade_date`, message: `is ${e.trade_date}: not a day of the calendar` });
  });
  const given = (field: 'from' | 'to'): Date | undefined => {
    const text = req[field];
    if (text === undefined) return undefined;
    const d = new Date(text);
    if (Number.isNaN(d.getTime())) errors.push({ field, message: 'is not an instant a clock can show' });
    return d;
  };
  const times = req.executions.map((e) => Date.parse(e.execution_time)).filter((t) => !Number.isNaN(t));
  // Not Math.min(...times): a drop copy of a few hundred thousand rows would overflow the call stack.
  const from = given('from') ?? (times.length > 0 ? new Date(times.reduce((a, b) => Math.min(a, b))) : undefined);
  const to = given('to') ?? (times.length > 0 ? new Date(times.reduce((a, b) => Math.max(a, b))) : undefined);
  if (req.executions.length === 0 && (req.from === undefined || req.to === undefined)) {
    errors.push({ field: 'executions', message: 'is empty: an empty drop copy needs from and to, the window it covers' });
  }
  if (from && to && from > to) errors.push({ field: 'from', message: `must not be later than the end of the window (${to.toISOString()})` });
  if (errors.length > 0 || !from || !to) throw validationError(errors);
  const agentIds = req.agent_ids ?? [...new Set(req.executions.map((e) => e.agent_id))];
  return { from, to, agentIds: [...new Set(agentIds.map((a) => a.toLowerCase()))] };
}

export async function reconcile(sql: Sql, req: ReconcileRequest, options: ReconcileOptions): Promise<ReconcileReport> {
  const { from, to, agentIds } = checkDropCopy(req);
  const executions = req.executions.map(normalized);
  // In exchange_tx_id order, so that two reconciliations of overlapping drop copies take their keys in one order.
  const sorted = [...executions].sort((a, b) => (a.exchange_tx_id < b.exchange_tx_id ? -1 : a.exchange_tx_id > b.exchange_tx_id ? 1 : 0));
  const dropCopyHash = hashJson(executions);
  return withTransaction(sql, async (tx) => {
    const linked: Array<{ execution: DropCopyExecution; link: LinkedTrace }> = [];
    const created: KnownExecution[] = [];
    const known: KnownExecution[] = [];
    const note = (execution: DropCopyExecution, link: LinkedTrace | null): boolean => {
      if (!link) return false;
      if (link.orphan) known.push({ exchange_tx_id: execution.exchange_tx_id, trace_id: link.trace_id, agent_id: link.agent_id });
      else linked.push({ execution, link });
      return true;
    };
    options.onProgress?.(0, sorted.length);
    for (let start = 0; start < sorted.length; start += RECONCILE_BATCH) {
      const batch = sorted.slice(start, start + RECONCILE_BATCH);
      const links = await linkedTraces(tx, null, batch.map(linkQueryOf));
      const orphans = batch
        .filter((e, i) => !note(e, links[i] ?? null))
        .map((e) => sealOrphan(e, newTraceId(options.now.getTime()), options.now, options.policy));
      const claimed = await recordOrphans(tx, orphans);
      const fresh = orphans.filter((o) => claimed.has(o.execution.exchange_tx_id));
      created.push(...fresh.map((o) => ({ exchange_tx_id: o.execution.exchange_tx_id, trace_id: o.trace_id, agent_id: o.execution.agent_id })));
      // Claimed meanwhile by another reconciliation (an orphan) or a bind (the execution's trace).
      const lost = orphans.filter((o) => !claimed.has(o.execution.exchange_tx_id)).map((o) => o.execution);
      (await linkedTraces(tx, null, lost.map(linkQueryOf))).forEach((l, i) => note(lost[i]!, l ?? null));
      options.onProgress?.(start + batch.length, sorted.length);
    }
    const { matched, divergent } = compareLinked(linked, options.comparison);
    const listed = new Set(executions.map((e) => e.exchange_tx_id));
    const missing: MissingExecution[] = [];
    await forEachBoundInWindow(tx, agentIds, from, to, (rows) => {
      for (const r of rows) {
        if (!listed.has(r.exchange_tx_id))
          missing.push({ trace_id: r.trace_id, agent_id: r.agent_id, exchange_tx_id: r.exchange_tx_id, execution_time: r.execution_time.toISOString() });
      }
    });
    const counts = {
      matched: matched.length,
      divergent: divergent.length,
      orphans_created: created.length,
      already_known: known.length,
      missing: missing.length,
    };
    const window = { from: from.toISOString(), to: to.toISOString() };
    const entry = await appendAudit(tx, {
      actor: options.actor,
      action: 'reconcile',
      target_id: null,
      details: { source: options.source, drop_copy_hash: dropCopyHash, executions: executions.length, window, agents: agentIds.length, ...counts },
    });
    return {
      executions: executions.length,
      window,
      agent_ids: agentIds,
      drop_copy_hash: dropCopyHash,
      counts,
      orphans_created: created,
      already_known: known,
      matched,
      divergent,
      missing,
      audit_entry_id: entry.id,
    };
  });
}

/** Ids in the store's lowercase form, so matching and the hash do not depend on how a file spelled them. */
const normalized = (e: DropCopyExecution): DropCopyExecution => ({ ...e, agent_id: e.agent_id.toLowerCase() });

const linkQueryOf = (e: DropCopyExecution) => ({
  exchange_tx_id: e.exchange_tx_id,
  agent_id: e.agent_id,
  client_order_id: e.client_order_id ?? null,
  order_id: null,
});

/**
 * The three-way comparison of each execution linked to an authorized trace, in the order the exchange executed
 * them, so that one order's quantity is cumulated over the drop copy's fills of it (the drop copy lists the day's
 * fills: the quantities the live session recorded are not added to them).
 */
function compareLinked(
  linked: ReadonlyArray<{ execution: DropCopyExecution; link: LinkedTrace }>,
  settings: ComparisonSettings,
): { matched: KnownExecution[]; divergent: DivergentExecution[] } {
  const byTime = [...linked].sort(
    (a, b) =>
      Date.parse(a.execution.execution_time) - Date.parse(b.execution.execution_time) || (a.execution.exchange_tx_id < b.execution.exchange_tx_id ? -1 : 1),
  );
  const filled = new Map<string, number>();
  const matched: KnownExecution[] = [];
  const divergent: DivergentExecution[] = [];
  for (const { execution: e, link } of byTime) {
    const before = filled.get(link.trace_id) ?? 0;
    filled.set(link.trace_id, before + e.quantity);
    const differences = compareFill({ fill: e, order: link, bind: link.exchange_tx_id === e.exchange_tx_id ? link : null, filled_before: before, ...settings });
    const known = { exchange_tx_id: e.exchange_tx_id, trace_id: link.trace_id, agent_id: link.agent_id };
    if (differences.length === 0) matched.push(known);
    else divergent.push({ ...known, differences });
  }
  const byId = (a: KnownExecution, b: KnownExecution): number => (a.exchange_tx_id < b.exchange_tx_id ? -1 : a.exchange_tx_id > b.exchange_tx_id ? 1 : 0);
  return { matched: matched.sort(byId), divergent: divergent.sort(byId) };
}
