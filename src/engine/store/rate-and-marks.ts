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
 * second, this one included, as if counted one after another in the orders' order. One upsert per agent and
 * second adds the orders of that second; each order's count is the total before plus its place among them.
 */
export async function countOrders(sql: Sql, orders: readonly OrderCount[]): Promise<number[]> {
  const rows = await sql<Array<{ ord: number; orders: number }>>`
    with input as (
      select o.ord::int - 1 as ord, o.agent_id, o.second,
             row_number() over (partition by o.agent_id, o.second order by o.ord) as place,
             count(*) over (partition by o.agent_id, o.second) as together
      from unnest(${orders.map((o) => o.agentId)}::uuid[], ${orders.map((o) => o.second)}::bigint[]) with ordinality as o(agent_id, second, ord)
    ), counted as (
      insert into agent_order_rate (agent_id, second, orders)
      select agent_id, second, count(*) from input group by agent_id, second order by agent_id, second
      on conflict (agent_id, second) do update set orders = agent_order_rate.orders + excluded.orders
      returning agent_id, second, orders
    )
    select i.ord, (c.orders - i.together + i.place)::int as orders
    from input i join counted c on c.agent_id = i.agent_id and c.second = i.second order by i.ord`;
  return orders.map((_, i) => {
    const row = rows[i];
    if (!row || row.ord !== i) throw new Error(`the counting statement answered ${rows.length} rows for ${orders.length} orders`);
    return row.orders;
  });
}

/** Drops order counts older than a minute (run by the sweeper). */
export async function pruneOrderRate(sql: Sql, nowMs: number): Promise<number> {
  const rows = await sql`delete from agent_order_rate where second < ${Math.floor(nowMs / 1000) - 60} returning agent_id`;
  return rows.length;
}
