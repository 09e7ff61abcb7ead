/**
 * Inbound drop-copy messages for the tests of src/engine/dropcopy/ (apply.ts, pipeline.ts), as the FIX session
 * hands them over, and the state row a session owner writes before its pipeline starts.
 */
import type { Sql } from 'postgres';
import type { InboundFill, InboundReject } from '../../src/engine/dropcopy/inbound.js';

export const SESSION_KEY = 'FIX.4.4:TRADESEAL->EXCH';
export const ACTOR = `fix:${SESSION_KEY}`;

/** A fill of `agentId` with ExecID `execId`, read as MsgSeqNum `seq`. */
export function fillOf(seq: number, execId: string, agentId: string, overrides: Partial<InboundFill['execution']> & { possDup?: boolean } = {}): InboundFill {
  const { possDup, ...execution } = overrides;
  return {
    seq,
    possDup: possDup ?? false,
    receivedAt: new Date(),
    execution: {
      exchange_tx_id: execId,
      asset: 'AAPL',
      side: 'Long',
      quantity: 100,
      price: 190,
      agent_id: agentId,
      execution_time: '2026-11-27T14:30:00.123Z',
      ...execution,
    },
  };
}

/** A refused message read as MsgSeqNum `seq`: a fill missing its Symbol (55), answered 35=3 373=1 371=55. */
export function rejectOf(seq: number | null, overrides: Partial<InboundReject> = {}): InboundReject {
  return {
    seq,
    msgType: '8',
    receivedAt: new Date(),
    answer: 'reject',
    reasonCode: 1,
    refTag: 55,
    reason: 'Required tag missing',
    raw: `8=FIX.4.4|9=99|35=8|34=${seq ?? 0}|49=EXCH|56=TRADESEAL|17=X|150=F|10=000|`,
    ...overrides,
  };
}

/** The session's row at `epoch`, as the runner leaves it when it takes the session. */
export async function sessionRow(sql: Sql, epoch: number, nextTargetSeq = 1): Promise<void> {
  await sql`
    insert into dropcopy_sessions (session_key, role, state, epoch, next_target_seq, owner)
    values (${SESSION_KEY}, 'initiator', 'logged_on', ${epoch}, ${nextTargetSeq}, 'test:1')
    on conflict (session_key) do update set epoch = excluded.epoch, next_target_seq = excluded.next_target_seq`;
}

export async function sessionState(sql: Sql): Promise<{ next_target_seq: number; epoch: number; last_inbound_at: Date | null }> {
  const [row] = await sql<Array<{ next_target_seq: number; epoch: string; last_inbound_at: Date | null }>>`
    select next_target_seq, epoch, last_inbound_at from dropcopy_sessions where session_key = ${SESSION_KEY}`;
  if (!row) throw new Error('no session row');
  return { next_target_seq: row.next_target_seq, epoch: Number(row.epoch), last_inbound_at: row.last_inbound_at };
}

/** Rows of the tables a drop copy writes, to show what changed and what did not. */
export async function counts(
  sql: Sql,
): Promise<{ executions: number; orphans: number; orphanTraces: number; rejects: number; fillEntries: number; rejectEntries: number }> {
  const [row] = await sql<Array<Record<string, string>>>`
    select (select count(*) from dropcopy_executions) as executions,
           (select count(*) from orphan_executions) as orphans,
           (select count(*) from traces where status = 'ORPHAN') as orphan_traces,
           (select count(*) from dropcopy_rejects) as rejects,
           (select count(*) from audit_log where action = 'dropcopy.fill') as fill_entries,
           (select count(*) from audit_log where action = 'dropcopy.reject') as reject_entries`;
  return {
    executions: Number(row?.executions),
    orphans: Number(row?.orphans),
    orphanTraces: Number(row?.orphan_traces),
    rejects: Number(row?.rejects),
    fillEntries: Number(row?.fill_entries),
    rejectEntries: Number(row?.reject_entries),
  };
}
