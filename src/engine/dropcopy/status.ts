/**
 * The FIX drop-copy session as the compliance officer reads it (`GET /engine/admin/dropcopy`, `tradeseal engine
 * dropcopy status`, the line in the terminal view): what this process's settings configure, the session's state
 * row (written by the instance running it, src/engine/dropcopy/runner.ts), the fills it applied by outcome and
 * the messages it refused. Nothing here writes; reading it never fails for want of a session: with none
 * configured and none ever run, the state says so.
 *
 * Also the refused messages themselves (`GET /engine/admin/dropcopy/rejects`), newest first.
 */
import type { Sql } from 'postgres';
import type { Config, DropCopyConfig } from '../../core/config.js';

/** The session's states as its runner writes them, and the two a reader adds when there is no row. */
export type DropCopyState = 'connecting' | 'logged_on' | 'logged_out' | 'disconnected' | 'stopped' | 'not_configured' | 'not_started';

export const NOT_CONFIGURED = 'no FIX drop-copy session is configured (FIX_DROPCOPY_ROLE unset)';

/** What the settings name (`config.dropCopy`), as far as a reader needs it. */
export interface ConfiguredSession {
  session_key: string;
  role: 'initiator' | 'acceptor';
  host: string;
  port: number;
}

/** The state row (`dropcopy_sessions`). */
export interface SessionRow {
  session_key: string;
  role: 'initiator' | 'acceptor';
  state: string;
  owner: string | null;
  epoch: number;
  next_sender_seq: number;
  next_target_seq: number;
  last_inbound_at: Date | null;
  last_outbound_at: Date | null;
  last_logon_at: Date | null;
  updated_at: Date;
}

export const FILL_OUTCOMES = ['matched', 'divergent', 'orphan', 'already_known'] as const;
export type FillOutcome = (typeof FILL_OUTCOMES)[number];

export interface DropCopyStatus {
  /** The session's state; `not_configured` / `not_started` when there is no state row. */
  state: DropCopyState | string;
  /** One line saying what the state means, for a person. */
  summary: string;
  configured: ConfiguredSession | null;
  session: SessionRow | null;
  fills: Record<FillOutcome, number> & { total: number };
  /** When the last fill was applied (its `applied_at`). */
  last_fill_at: Date | null;
  /** Fills repeating a recorded identity (session, trading day, ExecID) with other fields (dropcopy_conflicts). */
  conflicts: number;
  last_conflict_at: Date | null;
  /** ORPHAN traces resolved by a later bind of their execution. */
  orphans_resolved: number;
  rejects: number;
  last_reject_at: Date | null;
  /** When this was read: the instant the ages are counted from. */
  checked_at: Date;
}

/** A refused message (`dropcopy_rejects`), as the officer reads it. */
export interface DropCopyReject {
  received_at: Date;
  seq: number | null;
  msg_type: string | null;
  answer: 'reject' | 'business_reject' | 'none';
  reason_code: number | null;
  ref_tag: number | null;
  reason: string;
  raw: string;
  session_key: string;
  id: string;
}

/** `FIX.4.4:<SenderCompID>-><TargetCompID>`, ours first: the key of the state row (as the runner writes it). */
export const sessionKeyOf = (d: Pick<DropCopyConfig, 'senderCompId' | 'targetCompId'>): string => `FIX.4.4:${d.senderCompId}->${d.targetCompId}`;

/** The session the settings configure, or null (FIX_DROPCOPY_ROLE unset). */
export function configuredSession(config: Pick<Config, 'dropCopy'>): ConfiguredSession | null {
  const s = config.dropCopy;
  if (!s) return null;
  return { session_key: sessionKeyOf(s), role: s.role, host: s.host, port: s.port };
}

/**
 * The state and its line, from what was read: pure. `detail` is the row's `state_detail` (why the initiator's last
 * attempt failed and when the next is due), appended when there is one.
 */
export function summarize(configured: ConfiguredSession | null, session: SessionRow | null, detail: string | null = null): { state: string; summary: string } {
  if (!session) {
    return configured
      ? { state: 'not_started', summary: `${configured.session_key} (${configured.role}) is configured, but no server has run it yet` }
      : { state: 'not_configured', summary: NOT_CONFIGURED };
  }
  const unset = configured ? '' : '; FIX_DROPCOPY_ROLE is unset here';
  return {
    state: session.state,
    summary: `${session.session_key} (${session.role}) ${session.state}${session.owner ? ` on ${session.owner}` : ''}${detail ? `: ${detail}` : ''}${unset}`,
  };
}

/**
 * The session's status: the configured session's row; with none configured, the most recently updated row, so
 * a reader without the server's settings (an operator's laptop on the store) still sees the session that ran.
 */
export async function readDropCopyStatus(sql: Sql, configured: ConfiguredSession | null, now: Date): Promise<DropCopyStatus> {
  const rows = await sql<Array<SessionRow & { state_detail: string | null }>>`
    select session_key, role, state, owner, epoch::int as epoch, next_sender_seq, next_target_seq,
           last_inbound_at, last_outbound_at, last_logon_at, updated_at, state_detail
    from dropcopy_sessions
    where ${configured === null} or session_key = ${configured?.session_key ?? ''}
    order by updated_at desc, session_key
    limit 1`;
  const { state_detail: detail = null, ...row } = rows[0] ?? { state_detail: null };
  const session = rows[0] ? (row as SessionRow) : null;
  const key = session?.session_key ?? configured?.session_key ?? null;
  const fills = { matched: 0, divergent: 0, orphan: 0, already_known: 0, total: 0 };
  let conflicts = 0;
  let lastConflict: Date | null = null;
  let resolved = 0;
  let lastFill: Date | null = null;
  let rejects = 0;
  let lastReject: Date | null = null;
  if (key !== null) {
    const [byOutcome, refused, conflicting, orphansResolved] = await Promise.all([
      sql<Array<{ outcome: FillOutcome; n: number; last: Date }>>`
        select outcome, count(*)::int as n, max(applied_at) as last from dropcopy_executions where session_key = ${key} group by outcome`,
      sql<Array<{ n: number; last: Date | null }>>`select count(*)::int as n, max(received_at) as last from dropcopy_rejects where session_key = ${key}`,
      sql<Array<{ n: number; last: Date | null }>>`select count(*)::int as n, max(recorded_at) as last from dropcopy_conflicts where session_key = ${key}`,
      sql<Array<{ n: number }>>`select count(*)::int as n from dropcopy_executions where session_key = ${key} and orphan_trace_id is not null`,
    ]);
    conflicts = conflicting[0]?.n ?? 0;
    lastConflict = conflicting[0]?.last ?? null;
    resolved = orphansResolved[0]?.n ?? 0;
    for (const r of byOutcome) {
      fills[r.outcome] = r.n;
      fills.total += r.n;
      if (!lastFill || r.last > lastFill) lastFill = r.last;
    }
    rejects = refused[0]?.n ?? 0;
    lastReject = refused[0]?.last ?? null;
  }
  return {
    ...summarize(configured, session, detail),
    configured,
    session,
    fills,
    last_fill_at: lastFill,
    conflicts,
    last_conflict_at: lastConflict,
    orphans_resolved: resolved,
    rejects,
    last_reject_at: lastReject,
    checked_at: now,
  };
}

/** The refused messages, newest first, at most `limit`. */
export async function listDropCopyRejects(sql: Sql, limit: number): Promise<DropCopyReject[]> {
  return sql<DropCopyReject[]>`
    select received_at, seq, msg_type, answer, reason_code, ref_tag, reason, raw, session_key, id
    from dropcopy_rejects order by received_at desc, id desc limit ${limit}`;
}
