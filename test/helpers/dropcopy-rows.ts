/**
 * Rows of the FIX drop-copy session's tables (src/store/migrations/0022_dropcopy.sql), written directly: what
 * the session would have written, for the tests of what reads them (the status, the refused messages, the view).
 */
import { randomUUID } from 'node:crypto';
import type { Sql } from 'postgres';

export const SESSION_KEY = 'FIX.4.4:TRADESEAL->XNAS-DC';

export interface SessionRowInput {
  session_key?: string;
  role?: 'initiator' | 'acceptor';
  state?: string;
  owner?: string | null;
  epoch?: number;
  next_sender_seq?: number;
  next_target_seq?: number;
  last_inbound_at?: Date | null;
  last_outbound_at?: Date | null;
  last_logon_at?: Date | null;
  updated_at?: Date;
}

export async function insertSession(sql: Sql, row: SessionRowInput = {}): Promise<void> {
  const r = {
    session_key: SESSION_KEY,
    role: 'initiator',
    state: 'logged_on',
    owner: 'engine-1:4121',
    epoch: 3,
    next_sender_seq: 12,
    next_target_seq: 40,
    last_inbound_at: null,
    last_outbound_at: null,
    last_logon_at: null,
    updated_at: new Date(),
    ...row,
  };
  await sql`
    insert into dropcopy_sessions (session_key, role, state, owner, epoch, next_sender_seq, next_target_seq, last_inbound_at, last_outbound_at, last_logon_at, updated_at)
    values (${r.session_key}, ${r.role}, ${r.state}, ${r.owner}, ${r.epoch}, ${r.next_sender_seq}, ${r.next_target_seq}, ${r.last_inbound_at}, ${r.last_outbound_at}, ${r.last_logon_at}, ${r.updated_at})
    on conflict (session_key) do update set role = excluded.role, state = excluded.state, owner = excluded.owner, epoch = excluded.epoch,
      next_sender_seq = excluded.next_sender_seq, next_target_seq = excluded.next_target_seq, last_inbound_at = excluded.last_inbound_at,
      last_outbound_at = excluded.last_outbound_at, last_logon_at = excluded.last_logon_at, updated_at = excluded.updated_at`;
}

export async function insertFill(
  sql: Sql,
  fill: {
    seq: number;
    outcome: 'matched' | 'divergent' | 'orphan' | 'already_known';
    appliedAt: Date;
    sessionKey?: string;
    execId?: string;
    traceId?: string | null;
  },
): Promise<void> {
  await sql`
    insert into dropcopy_executions (exec_id, session_key, trade_date, seq, poss_dup, received_at, applied_at, outcome, trace_id)
    values (${fill.execId ?? `XNAS-${randomUUID()}`}, ${fill.sessionKey ?? SESSION_KEY}, ${fill.appliedAt.toISOString().slice(0, 10)}, ${fill.seq}, false, ${fill.appliedAt}, ${fill.appliedAt}, ${fill.outcome}, ${fill.traceId ?? null})`;
}

export interface ConflictInput {
  recordedAt: Date;
  sessionKey?: string;
}

/** A row of dropcopy_conflicts: a repeated ExecID with other fields. */
export async function insertConflict(sql: Sql, c: ConflictInput): Promise<void> {
  await sql`
    insert into dropcopy_conflicts (id, session_key, trade_date, exec_id, seq, poss_dup, received_at, recorded_at, differences, received)
    values (${randomUUID()}, ${c.sessionKey ?? SESSION_KEY}, ${c.recordedAt.toISOString().slice(0, 10)}, ${`XNAS-${randomUUID()}`}, 1, false, ${c.recordedAt}, ${c.recordedAt},
      ${JSON.stringify([{ field: 'quantity', recorded: 100, received: 7 }])}::jsonb, '{}'::jsonb)`;
}

export interface RejectInput {
  seq: number | null;
  msg_type: string | null;
  received_at: Date;
  answer: 'reject' | 'business_reject' | 'none';
  reason_code: number | null;
  ref_tag: number | null;
  reason: string;
  raw: string;
  session_key?: string;
}

/** Inserts a refused message; its id. */
export async function insertReject(sql: Sql, r: RejectInput): Promise<string> {
  const id = randomUUID();
  await sql`
    insert into dropcopy_rejects (id, session_key, seq, msg_type, received_at, answer, reason_code, ref_tag, reason, raw)
    values (${id}, ${r.session_key ?? SESSION_KEY}, ${r.seq}, ${r.msg_type}, ${r.received_at}, ${r.answer}, ${r.reason_code}, ${r.ref_tag}, ${r.reason}, ${r.raw})`;
  return id;
}

/** Three refused messages, oldest first: a missing tag (35=3), an unmappable account (35=j), and garbled bytes (none). */
export function sampleRejects(base: Date): RejectInput[] {
  const at = (s: number): Date => new Date(base.getTime() + s * 1000);
  return [
    {
      seq: 17,
      msg_type: '8',
      received_at: at(0),
      answer: 'reject',
      reason_code: 1,
      ref_tag: 31,
      reason: 'Required tag missing: LastPx (31)',
      raw: '8=FIX.4.4|9=141|35=8|34=17|49=XNAS-DC|56=TRADESEAL|52=20261127-14:03:05.100|37=O-88|17=XNAS-20261127-000777|150=F|39=2|55=AAPL|54=1|32=100|60=20261127-14:03:05.001|1=6f1c2a9e-3b4d-4e8f-9a0b-1c2d3e4f5a6b|10=201|',
    },
    {
      seq: 18,
      msg_type: '8',
      received_at: at(1),
      answer: 'business_reject',
      reason_code: 0,
      ref_tag: 1,
      reason: 'Account (1) "DESK-7" is not an agent id (a UUID): the fill cannot be reconciled to an agent',
      raw: '8=FIX.4.4|9=150|35=8|34=18|49=XNAS-DC|56=TRADESEAL|52=20261127-14:03:06.100|37=O-89|17=XNAS-20261127-000778|150=F|39=2|55=MSFT|54=2|32=50|31=410.5|60=20261127-14:03:06.001|1=DESK-7|10=114|',
    },
    {
      seq: null,
      msg_type: null,
      received_at: at(2),
      answer: 'none',
      reason_code: null,
      ref_tag: null,
      reason: 'CheckSum (10) is 077, the bytes sum to 076',
      raw: '8=FIX.4.4|9=62|35=0|34=19|49=XNAS-DC|56=TRADESEAL|52=20261127-14:03:07.100|10=077|',
    },
  ];
}
