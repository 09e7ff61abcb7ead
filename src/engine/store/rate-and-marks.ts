/**
 * The per-agent order count of the current wall-clock second (the message throttle), shared by every
 * instance through Postgres. (Heartbeat replay marks are spent in `insertTrace`.)
 */
import type { Sql } from 'postgres';


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
