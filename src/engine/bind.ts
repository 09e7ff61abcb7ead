/**
 * Bind-execution: ties the exchange confirmation to the sealed trace. `final_proof` =
 * SHA-256(reasoning_hash ‖ "||" ‖ exchange_tx_id). The verification (docs/decisions/0010-verification-states.md):
 * - executed side opposite to the intent → Mismatch;
 * - a trace that had Expired → Divergent, "bound after expiry";
 * - asset differs, or executed quantity outside the relative tolerance of the authorized quantity (a Partial
 *   fill below the quantity is within it) → Divergent, the reason naming the field and both values;
 * - an execution time before the authorization (the exchange cannot have filled an order before it was
 *   authorized; a 0 or a 1970 time is a client bug, not a fill), or later than the engine's clock by more
 *   than the replay window (the clock tolerance the engine grants heartbeats) → Divergent, naming both times;
 * - otherwise Matched.
 * Rejected and Cancelled executions moved nothing, so their quantity is not compared (asset and side are).
 *
 * One execution, one trace: the bind claims its exchange_tx_id (orphan_executions) in its statement. When the
 * exchange's drop copy came first and made the execution an ORPHAN trace, the bind resolves that orphan instead,
 * and the fill is then compared with this trace (src/engine/reconcile/resolve.ts).
 */
import { conflict, forbidden, notFound } from '../core/errors.js';
import { actorOf, mayActFor } from './auth.js';
import type { EngineContext } from './context.js';
import { comparisonSettings } from './reconcile/compare.js';
import { completeResolution } from './reconcile/resolve.js';
import { bindTrace, type BindRow, type BindUpdate } from './store/traces.js';
import type { TokenRecord } from './store/tokens.js';
import { finalProof } from './trace/seal.js';
import type { ExecutionStatus, TradeAction, VerificationStatus } from '../core/vocabulary.js';

export interface BindRequest {
  trace_id: string;
  exchange_tx_id: string;
  execution_status: ExecutionStatus;
  asset?: string | null;
  executed_quantity?: number | null;
  executed_side?: TradeAction | null;
  execution_price?: number | null;
  execution_time_ms?: number | null;
}

export interface BindResult {
  trace_id: string;
  final_proof: string;
  verification_status: VerificationStatus;
  execution_status: string;
  execution_time: Date;
  divergence_reason: string | null;
}

/** An instant for a reason text: ISO 8601 where Date can show it, else the raw milliseconds. */
const isoOrRaw = (ms: number): string => (Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : `${ms} ms`);

const OPPOSITE: Partial<Record<TradeAction, TradeAction>> = { Long: 'Short', Short: 'Long' };

export interface AuthorizedFacts {
  action: string;
  asset: string;
  quantity: number;
  expired: boolean;
  /** When the trace was sealed (its txn_time), Unix ms. */
  authorized_at: number;
}

/** The engine's clock at the bind and how far ahead of it an exchange's clock may be. */
export interface BindClock {
  now: number;
  toleranceMs: number;
}

/**
 * The verification of an execution against the authorized intent: a pure function. An expired trace is
 * Divergent "bound after expiry" whatever else differs (as decided); what else differs is appended to the
 * reason, so a side mismatch on a late bind is still on record.
 */
export function verifyExecution(
  intent: AuthorizedFacts,
  exec: BindRequest,
  tolerance: number,
  clock: BindClock,
): { status: VerificationStatus; reason: string | null } {
  const side = exec.executed_side ?? null;
  const opposite = side !== null && OPPOSITE[intent.action as TradeAction] === side;
  const reasons: string[] = [];
  if (side && side !== intent.action) reasons.push(`executed_side: authorized ${intent.action}, executed ${side}`);
  if (exec.asset != null && exec.asset !== intent.asset) reasons.push(`asset: authorized ${intent.asset}, executed ${exec.asset}`);
  const moved = exec.execution_status === 'Filled' || exec.execution_status === 'Partial';
  if (moved && exec.executed_quantity != null) {
    const q = exec.executed_quantity;
    const relative = Math.abs(q - intent.quantity) / intent.quantity;
    const partialBelow = exec.execution_status === 'Partial' && q <= intent.quantity;
    if (!partialBelow && relative > tolerance) {
      reasons.push(
        `executed_quantity: authorized ${intent.quantity}, executed ${q} (relative difference ${Number(relative.toPrecision(6))} > tolerance ${tolerance})`,
      );
    }
  }
  const executedAt = exec.execution_time_ms ?? clock.now;
  if (executedAt < intent.authorized_at) {
    reasons.push(`execution_time: ${isoOrRaw(executedAt)} is before the authorization at ${isoOrRaw(intent.authorized_at)}`);
  } else if (executedAt > clock.now + clock.toleranceMs) {
    reasons.push(`execution_time: ${isoOrRaw(executedAt)} is later than the engine's clock ${isoOrRaw(clock.now)} by more than ${clock.toleranceMs} ms`);
  }
  if (intent.expired) return { status: 'Divergent', reason: ['bound after expiry', ...reasons].join('; ') };
  if (opposite) return { status: 'Mismatch', reason: reasons.join('; ') };
  return reasons.length > 0 ? { status: 'Divergent', reason: reasons.join('; ') } : { status: 'Matched', reason: null };
}

/** Where bind reports a failure it answers through (the request's logger). */
export interface BindLog {
  warn(obj: unknown, msg: string): void;
}

/**
 * Binds `req` for `principal`. `mayBind`, when given, is a further check of the trace's agent (mutual TLS: the
 * client certificate's agent), asked before anything of the trace is used or told.
 */
export async function bindExecution(
  ctx: EngineContext,
  principal: TokenRecord | undefined,
  req: BindRequest,
  mayBind: (agentId: string) => void = () => {},
  log: BindLog | null = null,
): Promise<BindResult> {
  const now = ctx.now();
  const outcome = await bindTrace(
    ctx.batching.bindStore,
    req.trace_id,
    (row: BindRow): BindUpdate => {
      mayBind(row.agent_id);
      if (!mayActFor(principal, row.agent_id)) {
        throw forbidden('agent_not_permitted', `this token may not bind traces of agent ${row.agent_id}`);
      }
      const v = verifyExecution(
        { action: row.action, asset: row.asset, quantity: row.quantity, expired: row.verification_status === 'Expired', authorized_at: row.txn_time.getTime() },
        req,
        ctx.config.bindQuantityTolerance,
        { now, toleranceMs: ctx.config.heartbeatReplayWindowMs },
      );
      return {
        exchange_tx_id: req.exchange_tx_id,
        execution_status: req.execution_status,
        execution_time: new Date(req.execution_time_ms ?? now),
        executed_asset: req.asset ?? null,
        executed_quantity: req.executed_quantity ?? null,
        executed_side: req.executed_side ?? null,
        execution_price: req.execution_price ?? null,
        verification_status: v.status,
        divergence_reason: v.reason,
        final_proof: finalProof(row.reasoning_hash, req.exchange_tx_id),
      };
    },
    ctx.sealed.take(req.trace_id),
  );
  if (outcome.kind === 'not_found') throw notFound(`no trace ${req.trace_id}`);
  if (outcome.kind === 'already_bound') {
    mayBind(outcome.trace.agent_id);
    // Scope first: a token of another agent must not learn that the trace is bound, nor its exchange_tx_id.
    if (!mayActFor(principal, outcome.trace.agent_id)) {
      throw forbidden('agent_not_permitted', `this token may not bind traces of agent ${outcome.trace.agent_id}`);
    }
    throw conflict('trace_already_bound', `trace ${req.trace_id} is already bound (exchange_tx_id ${outcome.trace.exchange_tx_id ?? 'n/a'})`);
  }
  const t = outcome.trace;
  // The drop copy came first and made the execution an ORPHAN: this bind resolved it (in its statement); the
  // comparison, the fill's move to this trace and the audit entry follow (src/engine/reconcile/resolve.ts).
  // The bind is committed: should this step fail, the sweeper completes it within a minute (resolve.ts).
  if (t.resolved_orphan) {
    await completeResolution(ctx.sql, {
      exchange_tx_id: req.exchange_tx_id,
      orphan_trace_id: t.resolved_orphan,
      settings: comparisonSettings(ctx.config),
      actor: actorOf(principal),
    }).catch((err: unknown) => {
      log?.warn(
        { err, exchange_tx_id: req.exchange_tx_id, orphan_trace_id: t.resolved_orphan, trace_id: t.trace_id },
        'bind: recording the resolution of an ORPHAN failed; the sweeper records it',
      );
    });
  }
  return {
    trace_id: t.trace_id,
    final_proof: t.final_proof as string,
    verification_status: t.verification_status,
    execution_status: t.execution_status as string,
    execution_time: t.execution_time as Date,
    divergence_reason: t.divergence_reason,
  };
}
