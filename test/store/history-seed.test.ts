/**
 * Seeded trace history (bench/support/history.ts), which the engine benchmark loads before it measures: even
 * months, ids that name their txn_time (UUIDv8, src/core/trace-id.ts), an idempotency row per authorized trace, traces that verify,
 * nothing in the default partition and nothing queued for the transparency log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/crypto/hash.js';
import { canonicalJson } from '../../src/core/crypto/jcs.js';
import { finalProof } from '../../src/engine/trace/seal.js';
import { planChunks, planMonths } from '../../bench/support/history-plan.js';
import { seedHistory, type SeedHistoryResult } from '../../bench/support/history.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { traceTimeOf } from '../../src/core/trace-id.js';

const NOW = new Date('2026-03-17T10:00:00Z');
const TRACES = 20_000;
const MONTHS = 6;

/** The Unix ms in the last 48 bits of a UUID, and its version and variant nibbles. */
function uuidParts(id: string): { ms: number; version: string; variant: string } {
  const hex = id.replace(/-/g, '');
  return { ms: Number.parseInt(hex.slice(20), 16), version: hex[12] as string, variant: hex[16] as string };
}

describe('history plan', () => {
  it('spreads the traces over the whole months before the month of now, older months taking the remainder', () => {
    const months = planMonths(10, 3, NOW);
    expect(months.map((m) => [new Date(m.startMs).toISOString().slice(0, 7), m.count, m.offset])).toEqual([
      ['2025-12', 4, 0],
      ['2026-01', 3, 4],
      ['2026-02', 3, 7],
    ]);
    expect(months.at(-1)?.endMs).toBe(Date.parse('2026-03-01T00:00:00Z'));
  });

  it('cuts months into even chunks of at most chunkRows, covering every trace once', () => {
    const chunks = planChunks(planMonths(1_000, 2, NOW), 300);
    expect(chunks.map((c) => c.to - c.from)).toEqual([250, 250, 250, 250]);
    expect(chunks.map((c) => c.month.offset + c.from)).toEqual([0, 250, 500, 750]);
  });

  it('refuses nonsense with the argument named', () => {
    expect(() => planMonths(-1, 3, NOW)).toThrow(/traces/);
    expect(() => planMonths(10, 0, NOW)).toThrow(/months/);
    expect(() => planChunks([], 0)).toThrow(/chunkRows/);
  });
});

describe('seedHistory', () => {
  let store: TestStore;
  let result: SeedHistoryResult;
  const progress: number[] = [];

  beforeAll(async () => {
    store = await testStore({ max: 3 });
    result = await seedHistory(store.sql, {
      traces: TRACES,
      months: MONTHS,
      now: NOW,
      syntheticAgents: 7,
      chunkRows: 2_000,
      onProgress: (p) => progress.push(p.traces),
    });
  }, 120_000);
  afterAll(async () => store?.close());

  it('writes every trace in its month partition, evenly, none in traces_default', async () => {
    expect(result).toMatchObject({ traces: TRACES, from: new Date('2025-09-01T00:00:00Z'), to: new Date('2026-03-01T00:00:00Z') });
    const rows = await store.sql<Array<{ part: string; n: number }>>`
      select tableoid::regclass::text as part, count(*)::int as n from traces group by 1 order by 1`;
    expect(rows.map((r) => r.part)).toEqual(['traces_y2025m09', 'traces_y2025m10', 'traces_y2025m11', 'traces_y2025m12', 'traces_y2026m01', 'traces_y2026m02']);
    expect(rows.map((r) => r.n)).toEqual([3334, 3334, 3333, 3333, 3333, 3333]);
    const [inDefault] = await store.sql<Array<{ n: number }>>`select count(*)::int as n from traces_default`;
    expect(inDefault?.n).toBe(0);
    expect(progress.at(-1)).toBe(TRACES);
  });

  it("gives every trace an id of the engine's layout (UUIDv8) whose last group is its txn_time in ms", async () => {
    const rows = await store.sql<Array<{ trace_id: string; txn_time: Date }>>`select trace_id, txn_time from traces`;
    expect(rows).toHaveLength(TRACES);
    const wrong = rows.filter((r) => {
      const p = uuidParts(r.trace_id);
      return p.version !== '8' || !'89ab'.includes(p.variant) || p.ms !== r.txn_time.getTime() || traceTimeOf(r.trace_id)?.getTime() !== r.txn_time.getTime();
    });
    expect(wrong).toEqual([]);
    expect(new Set(rows.map((r) => r.trace_id)).size).toBe(TRACES);
  });

  it('keeps one idempotency row per authorized trace and one orphan_executions row per ORPHAN', async () => {
    const [c] = await store.sql<Array<{ authorized: number; idem: number; matching: number; orphans: number; orphan_rows: number }>>`
      select (select count(*) from traces where status <> 'ORPHAN')::int as authorized,
             (select count(*) from trace_idempotency)::int as idem,
             (select count(*) from trace_idempotency i join traces t
                on t.trace_id = i.trace_id and t.txn_time = i.txn_time and t.agent_id = i.agent_id and t.client_order_id = i.client_order_id
               where i.response->>'trace_id' = t.trace_id::text and i.response->>'reasoning_hash' = t.reasoning_hash
                 and (i.response->>'authorized')::boolean and not (i.response->>'shadow_blocked')::boolean)::int as matching,
             (select count(*) from traces where status = 'ORPHAN')::int as orphans,
             (select count(*) from orphan_executions o join traces t
                on t.trace_id = o.trace_id and t.txn_time = o.txn_time and t.exchange_tx_id = o.exchange_tx_id)::int as orphan_rows`;
    expect(c).toMatchObject({ idem: c?.authorized, matching: c?.authorized, orphan_rows: c?.orphans });
    expect(result).toMatchObject({ idempotency: c?.authorized, orphans: c?.orphans });
  });

  it('makes a realistic mix, nothing Pending, and queues nothing for the transparency log', async () => {
    const rows = await store.sql<Array<{ status: string; verification_status: string; n: number }>>`
      select status, verification_status, count(*)::int as n from traces group by 1, 2`;
    const share = (status: string): number => (rows.find((r) => r.status === status)?.n ?? 0) / TRACES;
    expect(share('MATCHED')).toBeGreaterThan(0.85);
    for (const s of ['DIVERGENT', 'EXPIRED', 'ORPHAN', 'MISMATCH']) expect(share(s)).toBeGreaterThan(0);
    expect(rows.every((r) => r.verification_status.toUpperCase() === r.status)).toBe(true);
    const [bound] = await store.sql<Array<{ bad: number }>>`
      select count(*)::int as bad from traces where (status in ('MATCHED', 'DIVERGENT', 'MISMATCH', 'ORPHAN')) <> (final_proof is not null and exchange_tx_id is not null and execution_time is not null)
         or (status = 'EXPIRED') <> (expired_at is not null)`;
    expect(bound?.bad).toBe(0);
    const [queued] = await store.sql<Array<{ n: number }>>`select count(*)::int as n from log_queue`;
    expect(queued?.n).toBe(0);
  });

  it('seals each trace as the engine does: canonical JSON, its hashes recompute, its fields agree with the row', async () => {
    const rows = await store.sql<
      Array<{
        trace_id: string;
        txn_time: Date;
        agent_id: string;
        status: string;
        sealed: string;
        reasoning_hash: string;
        final_proof: string | null;
        exchange_tx_id: string | null;
        client_order_id: string;
        quantity: number;
        notional: number;
      }>
    >`
      select trace_id, txn_time, agent_id, status, sealed, reasoning_hash, final_proof, exchange_tx_id, client_order_id, quantity, notional from traces`;
    const wrong = rows.filter((r) => {
      const doc = JSON.parse(r.sealed) as {
        trace_id: string;
        bitemporal: { txn_time: string };
        agent: { agent_id: string };
        execution: { client_order_id: string | null; quantity: number; notional: number };
      };
      return (
        canonicalJson(doc) !== r.sealed ||
        sha256Hex(r.sealed) !== r.reasoning_hash ||
        doc.trace_id !== r.trace_id ||
        doc.bitemporal.txn_time !== r.txn_time.toISOString() ||
        doc.agent.agent_id !== r.agent_id ||
        (doc.execution.client_order_id ?? '') !== r.client_order_id ||
        doc.execution.quantity !== r.quantity ||
        doc.execution.notional !== r.notional ||
        (r.exchange_tx_id !== null && r.final_proof !== finalProof(r.reasoning_hash, r.exchange_tx_id))
      );
    });
    expect(wrong.slice(0, 3)).toEqual([]);
  });

  it('refuses agents that are not registered', async () => {
    await expect(seedHistory(store.sql, { traces: 10, months: 1, now: NOW, agents: ['00000000-0000-4000-8000-000000000001'] })).rejects.toThrow(
      /not registered/,
    );
  });
});
