/**
 * The engine's batching of its hot statements (src/store/group-commit.ts): concurrent authorizes of one process
 * are looked up by one multi-row read (skipped for agents the process knows, src/engine/agent-cache.ts), then
 * counted by the message throttle and sealed by one multi-row statement; concurrent binds are read by one statement
 * and applied by one. Each request keeps its own outcome (sealed, over the throttle, heartbeat replayed, duplicate
 * client_order_id, already bound) exactly as if it were alone, after the earlier ones of its agent: one agent's
 * orders go in submission order, many to a statement (a busy agent is not serialized, ./traces.ts `insertTraces`). A request that finds a free slot is sent at once; batches form only while the store is busy.
 * Orders of an agent with an open-exposure cap are counted by a statement of their own, then judged by the cap
 * and sealed under the agent's lock, many in one transaction (./exposure-seal.ts).
 */
import type { Sql } from 'postgres';
import { GroupCommit } from '../../store/group-commit.js';
import { authorizeLookups, type AuthorizeLookup, type AuthorizeLookupKey } from './agents.js';
import { countOrders, type OrderCount } from './rate-and-marks.js';
import { sealUnderCaps, type CappedOrder, type CappedOutcome } from './exposure-seal.js';
import {
  applyBinds,
  insertTraces,
  maySealTogether,
  readForBind,
  type BindRead,
  type BindRow,
  type BindStore,
  type BindWrite,
  type SealOutcome,
  type SealWrite,
} from './traces.js';

/** Most requests one batched statement carries. */
export const BATCH_MAX = 64;

export interface EngineBatching {
  lookups: GroupCommit<AuthorizeLookupKey, AuthorizeLookup>;
  /** Seals, each counted first by the message throttle when it carries one. */
  seals: GroupCommit<SealWrite, SealOutcome>;
  /** The message throttle's per-agent order counts, for orders judged under an open-exposure lock. */
  orderCounts: GroupCommit<OrderCount, number>;
  /** Orders of agents with an open-exposure cap: judged by it and sealed, many under one lock (./exposure-seal.ts). */
  capped: GroupCommit<CappedOrder, CappedOutcome>;
  bindReads: GroupCommit<string, BindRead | null>;
  binds: GroupCommit<BindWrite, BindRow | null>;
  /** Binds through the two queues above. */
  bindStore: BindStore;
}

/** `inFlight`: statements of each kind under way at once (ENGINE_BATCH_IN_FLIGHT). */
export function engineBatching(sql: Sql, inFlight: number): EngineBatching {
  let next = 0;
  // Reads have no key constraint: every read is its own key.
  const unique = (): string => String(next++);
  const bindReads = new GroupCommit<string, BindRead | null>({
    write: (ids) => readForBind(sql, ids),
    keyOf: unique,
    maxBatch: BATCH_MAX,
    maxInFlight: inFlight,
  });
  // One write per trace in a statement (it updates the row once); rows in trace order, one lock order.
  const binds = new GroupCommit<BindWrite, BindRow | null>({
    write: (ws) => applyBinds(sql, ws),
    keyOf: (w) => w.trace_id,
    maxBatch: BATCH_MAX,
    maxInFlight: inFlight,
  });
  return {
    lookups: new GroupCommit({ write: (keys) => authorizeLookups(sql, keys), keyOf: unique, maxBatch: BATCH_MAX, maxInFlight: inFlight }),
    // An agent's orders in submission order; several in one statement when each gets its answer alone (maySealTogether).
    seals: new GroupCommit({
      write: (writes) => insertTraces(sql, writes),
      keyOf: (w) => w.trace.agent_id,
      mayShare: maySealTogether,
      maxBatch: BATCH_MAX,
      maxInFlight: inFlight,
    }),
    // An agent's orders counted in submission order, any number in one statement.
    orderCounts: new GroupCommit({
      write: (orders) => countOrders(sql, orders),
      keyOf: (o) => o.agentId,
      mayShare: () => true,
      maxBatch: BATCH_MAX,
      maxInFlight: inFlight,
    }),
    // An agent's capped orders in submission order, any number judged in one transaction.
    capped: new GroupCommit({
      write: (orders) => sealUnderCaps(sql, orders),
      keyOf: (o) => o.agentId.toLowerCase(),
      mayShare: () => true,
      maxBatch: BATCH_MAX,
      maxInFlight: inFlight,
    }),
    bindReads,
    binds,
    bindStore: { read: (id) => bindReads.submit(id), write: (w) => binds.submit(w) },
  };
}
