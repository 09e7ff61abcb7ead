/**
 * The engine's batching of authorize's two statements (src/store/group-commit.ts): concurrent authorizes of one
 * process are looked up by one multi-row read and sealed by one multi-row statement, each request keeping its
 * own outcome (sealed, heartbeat replayed, duplicate client_order_id) exactly as if it were alone. A request
 * that finds a free slot is sent at once; batches form only while the store is busy. Orders judged under an
 * agent's open-exposure lock are sealed inside that lock's transaction instead, alone.
 */
import type { Sql } from 'postgres';
import { GroupCommit } from '../../store/group-commit.js';
import { authorizeLookups, type AuthorizeLookup, type AuthorizeLookupKey } from './agents.js';
import { insertTraces, type InsertOutcome, type SealWrite } from './traces.js';

/** Most requests one batched statement carries. */
export const BATCH_MAX = 64;

export interface AuthorizeBatching {
  lookups: GroupCommit<AuthorizeLookupKey, AuthorizeLookup>;
  seals: GroupCommit<SealWrite, InsertOutcome>;
}

/** `inFlight`: statements of each kind under way at once (ENGINE_BATCH_IN_FLIGHT). */
export function authorizeBatching(sql: Sql, inFlight: number): AuthorizeBatching {
  let next = 0;
  return {
    // Reads have no key constraint: every lookup is its own key.
    lookups: new GroupCommit({ write: (keys) => authorizeLookups(sql, keys), keyOf: () => String(next++), maxBatch: BATCH_MAX, maxInFlight: inFlight }),
    // One agent per sealing statement: it upserts the agent's heartbeat mark once.
    seals: new GroupCommit({ write: (writes) => insertTraces(sql, writes), keyOf: (w) => w.trace.agent_id, maxBatch: BATCH_MAX, maxInFlight: inFlight }),
  };
}
