/**
 * Seeds a freshly migrated database with months of realistic trace history, so that a benchmark measures
 * authorize and bind against a store of production size rather than an empty one.
 *
 * Contract of `seedHistory(sql, options)` (bench/engine.ts calls it for `--history N --history-months M`):
 * - `sql`: a postgres.js pool on the migrated database, as a superuser (the seeding sets
 *   `session_replication_role`); with a pool of at least `concurrency` connections (default 2) the chunks run
 *   in parallel, else one after another. Any driver configuration will do (it reads back only ints, floats and uuids).
 * - `traces` traces over the `months` whole calendar months (UTC) before the month of `now`, an even share in
 *   each (./history-plan.ts); the month of `now` is left to live traffic. The month partitions, and those of
 *   the month of `now` and the next, are created first (`ensure_trace_partitions`), so nothing lands in
 *   traces_default.
 * - `agents`: ids of registered agents to spread the traces over; when none are given, `syntheticAgents`
 *   (default 50) agents are registered (src/engine/store/agents.ts), their created_at moved before the history.
 * - Every authorized trace gets its trace_idempotency row and every ORPHAN its orphan_executions row; the mix
 *   and the shape of each row are described in ./history-sql.ts. Trace ids are the engine's (src/core/trace-id.ts),
 *   whose last group is the trace's txn_time in ms.
 * - The transparency log's triggers do not fire (`session_replication_role = replica` in each chunk's
 *   transaction): the history is not in the log and log_queue stays empty, so the sequencer has no backlog.
 * - Each chunk (at most `chunkRows` traces of one month) commits on its own: on failure, drop the database.
 * - Then `vacuum (analyze)` of the written tables, so the planner knows their size and autovacuum does not start
 *   on them in the middle of a measurement.
 * - `onProgress` is called after each chunk. Resolves with what was written and how long it took.
 * - Cost (bench/README.md): about 2.4 kB of database per trace, written in one pass; with fsync on, the
 *   checkpoints also flush gigabytes of WAL, so seed before making a cluster durable where the run allows.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sql } from 'postgres';
import { hashJson, sha256Hex } from '../../src/core/crypto/hash.js';
import { canonicalJson } from '../../src/core/crypto/jcs.js';
import { registerAgent } from '../../src/engine/store/agents.js';
import { planChunks, planMonths, type HistoryChunk } from './history-plan.js';
import { CHUNK_STATEMENT, chunkValues } from './history-sql.js';

export interface SeedHistoryOptions {
  traces: number;
  months: number;
  /** Registered agents; empty or absent: `syntheticAgents` are registered. */
  agents?: readonly string[];
  now: Date;
  syntheticAgents?: number;
  /** Concurrent chunk statements (default 2: one per core of the machine the benchmarks run on). */
  concurrency?: number;
  /** Traces per INSERT … SELECT (default 250,000). */
  chunkRows?: number;
  /** The engine's trace expiry (default 24 h, TRACE_EXPIRY_MS): expired traces expired after it. */
  expiryMs?: number;
  onProgress?: (progress: SeedProgress) => void;
}

export interface SeedProgress {
  traces: number;
  total: number;
  chunks: number;
  totalChunks: number;
}

export interface SeedHistoryResult {
  traces: number;
  idempotency: number;
  orphans: number;
  agents: string[];
  /** The history's span: the first instant of its first month, and of the month of `now`. */
  from: Date;
  to: Date;
  insertMs: number;
  vacuumMs: number;
  databaseBytes: number;
}

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const REGIME_CYCLE = ['expansion', 'expansion', 'recovery', 'tightening', 'expansion', 'recovery'] as const;
const REGIME_IDS = { expansion: 0, recovery: 1, tightening: 2 } as const;
const REGIME_LABELS = { expansion: 'Expansion', recovery: 'Recovery', tightening: 'Tightening' } as const;

interface PolicyFile {
  id: string;
  version: string;
  regimes: Record<string, { allowed_sides: string[]; max_notional_scale: number }>;
}

export async function seedHistory(sql: Sql, options: SeedHistoryOptions): Promise<SeedHistoryResult> {
  const months = planMonths(options.traces, options.months, options.now);
  const chunks = planChunks(months, options.chunkRows ?? 250_000);
  const first = months[0] as { startMs: number };
  const from = new Date(first.startMs);
  const to = new Date(Date.UTC(options.now.getUTCFullYear(), options.now.getUTCMonth(), 1));
  const started = performance.now();

  const agents = await agentsFor(sql, options, from);
  await sql`select ensure_trace_partitions(${from}, ${options.months + 2})`;
  const policyDoc = JSON.parse(readFileSync(path.join(REPO, 'data/policy/default.json'), 'utf8')) as PolicyFile;
  const policyHash = hashJson(policyDoc);

  const fingerprints = agents.map((a) => sha256Hex(`latent fingerprint of ${a}`));
  const policy = (result: string): string => canonicalJson({ hash: policyHash, id: policyDoc.id, result, version: policyDoc.version });
  const params = (chunk: HistoryChunk): unknown[] => {
    const m = months.indexOf(chunk.month);
    return chunkValues({
      from: chunk.from,
      to: chunk.to,
      offset: chunk.month.offset,
      monthStartMs: chunk.month.startMs,
      slotMs: (chunk.month.endMs - chunk.month.startMs) / chunk.month.count,
      agents,
      fingerprints,
      mta: monthMta(policyDoc, m, chunk.month.startMs),
      policyPass: policy('PASS'),
      policyOrphan: policy('UNAUTHORIZED'),
      expiryMs: options.expiryMs ?? 86_400_000,
      nowMs: options.now.getTime(),
    });
  };

  const totals = { traces: 0, idempotency: 0, orphans: 0, chunks: 0 };
  const concurrency = Math.max(1, options.concurrency ?? 2);
  await inParallel(chunks, concurrency, async (chunk) => {
    const [row] = await sql.begin(async (tx) => {
      // Replica mode: ordinary triggers (the transparency log's) do not fire for this transaction's writes.
      await tx`set local session_replication_role = replica`;
      await tx`set local synchronous_commit = off`;
      // A lateral row is never met twice here: caching it would only hash each sealed text once more.
      await tx`set local enable_memoize = off`;
      return tx.unsafe<Array<{ traces: number; idempotency: number; orphans: number }>>(CHUNK_STATEMENT, params(chunk) as never[]);
    });
    totals.traces += row?.traces ?? 0;
    totals.idempotency += row?.idempotency ?? 0;
    totals.orphans += row?.orphans ?? 0;
    totals.chunks += 1;
    options.onProgress?.({ traces: totals.traces, total: options.traces, chunks: totals.chunks, totalChunks: chunks.length });
  });
  const inserted = performance.now();

  // One statement, the partitions one after another: two at a time was slower in the one run that tried it
  // (48 s against 29 s for 3,000,000 traces).
  await sql`vacuum (analyze) traces, trace_idempotency, orphan_executions, agents, agent_models`;
  const [size] = await sql<Array<{ bytes: number }>>`select pg_database_size(current_database())::float8 as bytes`;
  return {
    traces: totals.traces,
    idempotency: totals.idempotency,
    orphans: totals.orphans,
    agents,
    from,
    to,
    insertMs: inserted - started,
    vacuumMs: performance.now() - inserted,
    databaseBytes: size?.bytes ?? 0,
  };
}

/** Runs `each` over `items`, at most `concurrency` at a time, in order of start. */
async function inParallel<T>(items: readonly T[], concurrency: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await each(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/**
 * The `mta` member of month `m`'s traces, in JCS: the regime changes every four months (never risk_off, whose
 * policy allows no side, so its orders would not have been sealed), one broadcast per month.
 */
function monthMta(policyDoc: PolicyFile, m: number, startMs: number): string {
  const regime = REGIME_CYCLE[Math.floor(m / 4) % REGIME_CYCLE.length] as keyof typeof REGIME_IDS;
  const rule = policyDoc.regimes[regime] as PolicyFile['regimes'][string];
  return canonicalJson({
    allowed_sides: rule.allowed_sides,
    hash: sha256Hex(`regime broadcast of ${new Date(startMs).toISOString()}`),
    max_notional_scale: rule.max_notional_scale,
    regime_id: REGIME_IDS[regime],
    regime_label: REGIME_LABELS[regime],
    risk_level: Math.round((0.15 + (0.5 * ((m * 37) % 11)) / 11) * 1e4) / 1e4,
    signature_valid: true,
    version: 'tradeseal-regime-1',
  });
}

/** The agents given (checked to be registered), or freshly registered synthetic ones. */
async function agentsFor(sql: Sql, options: SeedHistoryOptions, before: Date): Promise<string[]> {
  const given = [...new Set((options.agents ?? []).map((a) => a.toLowerCase()))];
  if (given.length > 0) {
    const rows = await sql<Array<{ agent_id: string }>>`select agent_id from agents where agent_id = any(${given}::uuid[])`;
    const known = new Set(rows.map((r) => r.agent_id));
    const missing = given.filter((a) => !known.has(a));
    if (missing.length > 0)
      throw new Error(`agents must be registered before seeding history; not registered: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''}`);
    return given;
  }
  const count = options.syntheticAgents ?? 50;
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`syntheticAgents must be a whole number >= 1, got ${count}`);
  const ids: string[] = [];
  for (let n = 0; n < count; n++) {
    const agent = await registerAgent(sql, {
      name: `history agent ${n + 1}`,
      max_notional: 1_000_000,
      models: [{ model_id: 'alpha-7', model_hash_hex: sha256Hex('history model alpha-7') }],
    });
    ids.push(agent.agent_id);
  }
  await sql`update agents set created_at = ${new Date(before.getTime() - 86_400_000)} where agent_id = any(${ids}::uuid[])`;
  return ids;
}
