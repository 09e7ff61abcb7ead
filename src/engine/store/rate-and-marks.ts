/**
 * The two atomic counters of authorize, shared by every instance through Postgres:
 * - heartbeat marks: a heartbeat's sequence_id is accepted only when greater than the last one accepted from
 *   that agent; the conditional upsert makes the check-and-set one atomic statement, so of 20 concurrent
 *   authorizes carrying the same heartbeat exactly one is accepted;
 * - the per-agent order count of the current wall-clock second (the message throttle).
 */
import type { Sql } from 'postgres';

export async function acceptHeartbeatSequence(sql: Sql, agentId: string, sequenceId: number): Promise<boolean> {
  const rows = await sql`
    insert into heartbeat_marks (agent_id, last_sequence_id) values (${agentId}, ${sequenceId})
    on conflict (agent_id) do update set last_sequence_id = excluded.last_sequence_id, accepted_at = now()
      where heartbeat_marks.last_sequence_id < excluded.last_sequence_id
    returning agent_id`;
  return rows.length === 1;
}

/** Counts this order and returns how many the agent has sent in the second of `nowMs`, this one included. */
export async function countOrder(sql: Sql, agentId: string, nowMs: number): Promise<number> {
  const second = Math.floor(nowMs / 1000);
  const [row] = await sql<Array<{ orders: number }>>`
    insert into agent_order_rate (agent_id, second, orders) values (${agentId}, ${second}, 1)
    on conflict (agent_id, second) do update set orders = agent_order_rate.orders + 1
    returning orders`;
  return row?.orders ?? 1;
}

/** Drops order counts older than a minute (run by the sweeper). */
export async function pruneOrderRate(sql: Sql, nowMs: number): Promise<number> {
  const rows = await sql`delete from agent_order_rate where second < ${Math.floor(nowMs / 1000) - 60} returning agent_id`;
  return rows.length;
}
