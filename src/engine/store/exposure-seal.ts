/**
 * Orders of agents with an open-exposure cap (`max_open_notional`), judged and sealed together. Concurrent orders
 * of one such agent must not both take the last room under its cap, so each is judged against the notional of
 * the agent's open orders under a lock on the agent's row. Here the orders of one batch (./batching.ts) share
 * that lock and one transaction: the agents' rows locked in agent order, their open notional, heartbeat marks
 * and idempotency records read once, then each order judged in its agent's submission order as if alone after
 * the ones before it (`judgeUnderCaps`, pure), and every order to seal written by one statement
 * (./traces.ts `insertTraces`). So a busy capped agent is not held to one order per transaction.
 */
import type { Sql } from 'postgres';
import type { Verdict } from '../denials.js';
import { checkOpenExposure } from '../policy/exposure.js';
import type { AuthorizeResponse } from './idempotency.js';
import { insertTraces, plainOutcome, type InsertOutcome, type NewTrace } from './traces.js';

/** An order judged by every rule but its agent's open-exposure cap, to be judged by the cap and sealed. */
export interface CappedOrder {
  agentId: string;
  clientOrderId: string;
  notional: number;
  cap: number;
  heartbeatSequence: number | null;
  /** Every rule but the cap (the throttle's count included). */
  verdict: Verdict;
  /** Shadow mode: an order over the cap is sealed SHADOW_HALTED, not refused. */
  shadow: boolean;
  /** The trace and answer of the order under its final verdict. */
  build: (final: Verdict) => { row: NewTrace; response: AuthorizeResponse };
}

export type CappedOutcome =
  /** Over the cap, shadow mode off: nothing written. */
  | { kind: 'refused'; verdict: Verdict & { ok: false } }
  /** An order with this client_order_id was sealed before: nothing written. */
  | { kind: 'duplicate' }
  /** Its answer when sealed (null: not inserted, `replayed` or a concurrent `duplicate`). */
  | { kind: 'sealed'; outcome: InsertOutcome; response: AuthorizeResponse | null };

/** What the transaction read of each agent: its open notional and the last heartbeat sequence it spent. */
export interface CapState {
  open: number;
  mark: number | null;
}

type Decision = { kind: 'refused'; verdict: Verdict & { ok: false } } | { kind: 'duplicate' } | { kind: 'replayed' } | { kind: 'seal'; final: Verdict };

/**
 * Judges the orders in order, each against its agent's state as the ones before it left it: a retry of an order
 * sealed before (or earlier here) is a duplicate; then the cap (open notional plus this order's), refused unless
 * shadow mode seals it SHADOW_HALTED; then a heartbeat not above the last spent is replayed; else sealed, and
 * its notional and sequence count for the next. Pure.
 */
export function judgeUnderCaps(orders: readonly CappedOrder[], states: ReadonlyMap<string, CapState>, known: ReadonlySet<string>): Decision[] {
  const state = new Map([...states].map(([k, v]) => [k, { ...v }]));
  const sealed = new Set(known);
  return orders.map((o) => {
    const s = state.get(o.agentId) ?? { open: 0, mark: null };
    state.set(o.agentId, s);
    const key = `${o.agentId}\u0000${o.clientOrderId}`;
    if (sealed.has(key)) return { kind: 'duplicate' };
    const final = o.verdict.ok ? checkOpenExposure(s.open, o.notional, o.cap) : o.verdict;
    if (!final.ok && !o.shadow) return { kind: 'refused', verdict: final };
    const seq = o.heartbeatSequence;
    if (seq !== null && s.mark !== null && seq <= s.mark) return { kind: 'replayed' };
    s.open += o.notional;
    if (seq !== null) s.mark = seq;
    sealed.add(key);
    return { kind: 'seal', final };
  });
}

/** Judges and seals the orders in one transaction, one outcome per order, in order. */
export async function sealUnderCaps(sql: Sql, orders: readonly CappedOrder[]): Promise<CappedOutcome[]> {
  const agents = [...new Set(orders.map((o) => o.agentId.toLowerCase()))].sort();
  return sql.begin(async (tx) => {
    const rows = await tx<Array<{ agent_id: string; open: number; mark: number | null }>>`
      select a.agent_id,
             (select coalesce(sum(t.notional), 0)::float8 from traces t where t.agent_id = a.agent_id and t.verification_status = 'Pending') as open,
             (select hm.last_sequence_id from heartbeat_marks hm where hm.agent_id = a.agent_id) as mark
      from agents a where a.agent_id = any(${agents}::uuid[]) order by a.agent_id for update of a`;
    const states = new Map(rows.map((r) => [r.agent_id, { open: r.open, mark: r.mark === null ? null : Number(r.mark) }]));
    const taken = await tx<Array<{ agent_id: string; client_order_id: string }>>`
      select ti.agent_id, ti.client_order_id from unnest(${orders.map((o) => o.agentId)}::uuid[], ${orders.map((o) => o.clientOrderId)}::text[]) as k(agent_id, client_order_id)
      join trace_idempotency ti on ti.agent_id = k.agent_id and ti.client_order_id = k.client_order_id`;
    const known = new Set(taken.map((t) => `${t.agent_id}\u0000${t.client_order_id}`));
    const lower = orders.map((o) => ({ ...o, agentId: o.agentId.toLowerCase() }));
    const decisions = judgeUnderCaps(lower, states, known);
    const built = decisions.map((d, i) => (d.kind === 'seal' ? (orders[i] as CappedOrder).build(d.final) : null));
    const writes = built.flatMap((b, i) => (b ? [{ trace: b.row, heartbeatSequence: (orders[i] as CappedOrder).heartbeatSequence }] : []));
    const outcomes = writes.length > 0 ? await insertTraces(tx, writes) : [];
    let next = 0;
    return decisions.map((d, i): CappedOutcome => {
      if (d.kind === 'refused' || d.kind === 'duplicate') return d;
      if (d.kind === 'replayed') return { kind: 'sealed', outcome: 'replayed', response: null };
      const outcome = plainOutcome(outcomes[next++]);
      return { kind: 'sealed', outcome, response: outcome === 'inserted' ? (built[i]?.response ?? null) : null };
    });
  });
}
