/**
 * The end-to-end setting of the FIX drop-copy tests: `tradeseal serve` as a child process on a test database,
 * configured with a drop-copy session (FIX_DROPCOPY_*), a QuickFIX/C++ exchange on the other end
 * (./quickfix/peer.ts) and a proxy between them (./fix-proxy.ts); and the reads of what the engine recorded.
 */
import net from 'node:net';
import type { Sql } from '../../src/store/driver.js';

export const ENGINE_COMP_ID = 'TRADESEAL';
export const EXCHANGE_COMP_ID = 'EXCH';
export const SESSION_KEY = `FIX.4.4:${ENGINE_COMP_ID}->${EXCHANGE_COMP_ID}`;

/** The server settings of a drop-copy session of role `role` with the exchange at (or listening on) `port`. */
export function dropCopyEnv(role: 'initiator' | 'acceptor', port: number): Record<string, string> {
  return {
    FIX_DROPCOPY_ROLE: role,
    FIX_DROPCOPY_HOST: '127.0.0.1',
    FIX_DROPCOPY_PORT: String(port),
    FIX_DROPCOPY_SENDER_COMP_ID: ENGINE_COMP_ID,
    FIX_DROPCOPY_TARGET_COMP_ID: EXCHANGE_COMP_ID,
    FIX_DROPCOPY_RECONNECT_S: '1',
  };
}

/** A port free on 127.0.0.1 now (for a listener started later: the engine as acceptor, the exchange as acceptor). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Polls `read` until `done` holds for its value; fails with the last value after `timeoutMs`. */
export async function waitUntil<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface ExecutionRow {
  exec_id: string;
  seq: number;
  poss_dup: boolean;
  outcome: string;
  trace_id: string | null;
}

/** The fills applied whose ExecID starts with `prefix`. */
export function executions(sql: Sql, prefix: string): Promise<ExecutionRow[]> {
  return sql<ExecutionRow[]>`
    select exec_id, seq, poss_dup, outcome, trace_id::text from dropcopy_executions
    where session_key = ${SESSION_KEY} and exec_id like ${`${prefix}%`} order by exec_id`;
}

/** ORPHAN traces per exchange_tx_id starting with `prefix`: [exchange_tx_id, count]. */
export async function orphanTraces(sql: Sql, prefix: string): Promise<Map<string, number>> {
  const rows = await sql<Array<{ exchange_tx_id: string; n: number }>>`
    select exchange_tx_id, count(*)::int as n from traces
    where status = 'ORPHAN' and exchange_tx_id like ${`${prefix}%`} group by exchange_tx_id`;
  return new Map(rows.map((r) => [r.exchange_tx_id, r.n]));
}

/** 'dropcopy.fill' audit entries per exec_id starting with `prefix`. */
export async function fillAudits(sql: Sql, prefix: string): Promise<Map<string, number>> {
  const rows = await sql<Array<{ exec_id: string; n: number }>>`
    select details::jsonb ->> 'exec_id' as exec_id, count(*)::int as n from audit_log
    where action = 'dropcopy.fill' and details::jsonb ->> 'exec_id' like ${`${prefix}%`} group by 1`;
  return new Map(rows.map((r) => [r.exec_id, r.n]));
}

export interface SessionRow {
  state: string;
  next_target_seq: number;
  next_sender_seq: number;
  epoch: number;
}

export async function sessionRow(sql: Sql): Promise<SessionRow | null> {
  const [row] = await sql<SessionRow[]>`
    select state, next_target_seq, next_sender_seq, epoch::int as epoch from dropcopy_sessions where session_key = ${SESSION_KEY}`;
  return row ?? null;
}

/** Resolves once every inbound message below `seq` has been applied (the session's watermark passed it). */
export function appliedThrough(sql: Sql, seq: number, timeoutMs?: number): Promise<SessionRow | null> {
  return waitUntil(
    `the watermark past seq ${seq}`,
    () => sessionRow(sql),
    (r) => (r?.next_target_seq ?? 0) > seq,
    timeoutMs,
  );
}
