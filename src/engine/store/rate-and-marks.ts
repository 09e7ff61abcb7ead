/**
 * The per-agent order count of the current wall-clock second (the message throttle), shared by every
 * instance through Postgres. (Heartbeat replay marks are spent in `insertTrace`.)
 */
import type { Sql } from 'postgres';

/** One order to count: its agent and the wall-clock second it arrived in (Unix seconds). */
export interface OrderCount {
  agentId: string;
  second: number;
}

export const orderSecond = (nowMs: number): number => Math.floor(nowMs / 1000);

/**
 * Counts several orders in one statement, one answer per order in order: how many its agent has sent in its
 * second, this one included. The orders must name distinct agents (one statement may not upsert a row twice);
 * the group-commit queue (./batching.ts) forms its batches so.
 */
export async function countOrders(sql: Sql, orders: readonly OrderCount[]): Promise<number[]> {
  const rows = await sql<Array<{ agent_id: string; second: string; orders: number }>>`
    insert into agent_order_rate (agent_id, second, orders)
    select agent_id, second, 1 from unnest(${orders.map((o) => o.agentId)}::uuid[], ${orders.map((o) => o.second)}::bigint[]) as o(agent_id, second)
    order by agent_id
    on conflict (agent_id, second) do update set orders = agent_order_rate.orders + 1
    returning agent_id, second, orders`;
  const counted = new Map(rows.map((r) => [`${r.agent_id} ${r.second}`, r.orders]));
  return orders.map((o) => counted.get(`${o.agentId.toLowerCase()} ${o.second}`) ?? 1);
}

/** Drops order counts older than a minute (run by the sweeper). */
export async function pruneOrderRate(sql: Sql, nowMs: number): Promise<number> {
  const rows = await sql`delete from agent_order_rate where second < ${Math.floor(nowMs / 1000) - 60} returning agent_id`;
  return rows.length;
}
