/**
 * Every record meant to stay stays: each table of the engine's transparency log, the signal service's track log,
 * the audit log and its checkpoints refuses UPDATE, DELETE and TRUNCATE (migrations 0014, 0019, 0025, 0028); each
 * log's state row refuses DELETE, TRUNCATE and any UPDATE that takes its size or its time back; the engine's queue
 * of leaves to log refuses TRUNCATE (its sequencer deletes row by row). On PostgreSQL and on PGlite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anchorNow } from '../../src/cli/audit-checkpoints.js';
import { appendAudit } from '../../src/engine/audit/append.js';
import { testStore, type TestStore } from '../helpers/db.js';

let store: TestStore;
const hash = Buffer.alloc(32, 7);
const signature = Buffer.alloc(64, 1);
const keyId = 'a'.repeat(64);
const agent = '00000000-0000-4000-8000-000000000001';
const trace = '00000000-0000-4000-8000-000000000002';

beforeAll(async () => {
  store = await testStore();
  const sql = store.sql;
  // One row in each table, written the way the application writes them (inserts are what a log does).
  await sql`insert into log_leaves (leaf_index, trace_id, agent_id, kind, data, sequenced_at) values (0, ${trace}, ${agent}, 'reasoning_hash', ${hash}, 1)`;
  await sql`insert into log_nodes (level, idx, hash) values (1, 0, ${hash})`;
  await sql`insert into log_heads (tree_size, root_hash, timestamp_ms, signature, key_id) values (1, ${hash}, 1, ${signature}, ${keyId})`;
  await sql`insert into log_queue (trace_id, agent_id, kind, data) values (${trace}, ${agent}, 'reasoning_hash', ${hash}), (${trace}, ${agent}, 'final_proof', ${hash})`;
  await sql`insert into signal_log_leaves (leaf_index, date, kind, run_id, data, logged_at_ms) values (0, '2025-06-02', 'live', null, ${Buffer.from('{}')}, 1)`;
  await sql`insert into signal_log_nodes (level, idx, hash) values (0, 0, ${hash})`;
  await sql`insert into signal_log_heads (tree_size, root_hash, timestamp_ms, signature, key_id) values (1, ${hash}, 1, ${signature}, ${keyId})`;
  for (const table of ['log_state', 'signal_log_state']) await store.sql.unsafe(`update ${table} set tree_size = 1, last_timestamp_ms = last_timestamp_ms + 1`);
  // The audit log and a checkpoint over it, by their own writers.
  await appendAudit(sql, { actor: 'test', action: 'reconcile', target_id: null, details: { n: 1 } });
  await anchorNow(sql, { logSigningKey: null }, Date.now());
}, 60_000);
afterAll(async () => store?.close());

const refused = (statement: string) => expect(store.sql.unsafe(statement)).rejects.toThrow(/append-only|refused/);
const count = async (table: string): Promise<number> => Number((await store.sql.unsafe<Array<{ n: string }>>(`select count(*) as n from ${table}`))[0]!.n);

describe('the tables of the logs', () => {
  it.each([
    ['log_leaves', 'set sequenced_at = 2'],
    ['log_nodes', 'set hash = hash'],
    ['log_heads', 'set timestamp_ms = 2'],
    ['signal_log_leaves', "set kind = 'backfill'"],
    ['signal_log_nodes', 'set hash = hash'],
    ['signal_log_heads', 'set timestamp_ms = 2'],
  ])('%s refuses UPDATE, DELETE and TRUNCATE, and keeps its rows', async (table, set) => {
    const before = await count(table);
    expect(before).toBeGreaterThan(0);
    await refused(`update ${table} ${set}`);
    await refused(`delete from ${table}`);
    await refused(`truncate ${table}`);
    expect(await count(table)).toBe(before);
  });

  it.each([
    ['audit_log', 'set actor = actor'],
    ['audit_checkpoints', 'set size = size'],
  ])('%s refuses UPDATE, DELETE and TRUNCATE', async (table, set) => {
    expect(await count(table)).toBe(1);
    await refused(`update ${table} ${set}`);
    await refused(`delete from ${table}`);
    await refused(`truncate ${table}`);
    expect(await count(table)).toBe(1);
  });

  it("the engine's queue of leaves refuses TRUNCATE, and its sequencer still deletes what it logged", async () => {
    await refused('truncate log_queue');
    expect(await count('log_queue')).toBe(2);
    await store.sql`delete from log_queue where id = (select min(id) from log_queue)`;
    expect(await count('log_queue')).toBe(1);
  });
});

describe('the state row of each log', () => {
  it.each(['log_state', 'signal_log_state'])('%s refuses DELETE, TRUNCATE and a step back in size or time; goes forward', async (table) => {
    const [state] = await store.sql.unsafe<Array<{ tree_size: string; last_timestamp_ms: string; created_at_ms: string }>>(
      `select tree_size, last_timestamp_ms, created_at_ms from ${table}`,
    );
    await refused(`delete from ${table}`);
    await refused(`truncate ${table}`);
    await refused(`update ${table} set tree_size = 0`);
    await refused(`update ${table} set last_timestamp_ms = last_timestamp_ms - 1`);
    await refused(`update ${table} set created_at_ms = created_at_ms + 1`);
    // What the sequencer does: one more leaf, a later head.
    await store.sql.unsafe(`update ${table} set tree_size = tree_size + 1, last_timestamp_ms = last_timestamp_ms + 1000`);
    const [after] = await store.sql.unsafe<Array<{ tree_size: string; created_at_ms: string }>>(`select tree_size, created_at_ms from ${table}`);
    expect([Number(after!.tree_size), after!.created_at_ms]).toEqual([Number(state!.tree_size) + 1, state!.created_at_ms]);
  });

  it('a log with nothing logged may have its clock set (a store begun on another clock), never its size lowered', async () => {
    const fresh = await testStore();
    try {
      await fresh.sql`update signal_log_state set last_timestamp_ms = 1, created_at_ms = 1`;
      expect(Number((await fresh.sql<Array<{ t: string }>>`select last_timestamp_ms as t from signal_log_state`)[0]!.t)).toBe(1);
      await expect(fresh.sql`delete from signal_log_state`).rejects.toThrow(/refused/);
    } finally {
      await fresh.close();
    }
  });
});
