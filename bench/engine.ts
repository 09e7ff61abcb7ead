/**
 * Benchmark of the compliance engine's authorize and bind under load, next to a floor measured in the same
 * run, on the same server processes, pool and load generator (see bench/README.md).
 *
 *   npx tsx bench/engine.ts [--seconds 10] [--warmup 2] [--connections 50,100] [--workers 1,2 (default: serve's)]
 *     [--modes durable,non-durable] [--agents 600] [--pool N] [--history N [--history-months 36]]
 *     [--no-single] [--profile] [--max-error-share 0.01] [--out FILE]
 *   npm run bench:engine -- --seconds 5
 *
 * 1. The database: a scratch database on the server of DATABASE_URL, else a throwaway PostgreSQL cluster
 *    whose commit settings are switched per mode (durable: fsync, synchronous_commit and full_page_writes on).
 * 2. The server: bench/engine-server.ts in a child process (the real `buildApp`, LAYER2_ENABLED on, a regime
 *    operator key, the default policy with its message throttle, the statement timeout, and the background jobs
 *    `serve` runs: the transparency log's sequencer, the sweeper, the audit anchorer), with N node:cluster workers
 *    for --workers N (default: `tradeseal serve`'s default count where the database is), plus the floor routes.
 * 3. --agents agents, each with its own client token; connections take turns among them, so no agent's
 *    requests overlap and the throttle refuses none. Every authorize carries a unique client_order_id and a
 *    heartbeat signed with the operator's key (signed ahead of the run), its sequence_id increasing per agent.
 * 4. For each workers × mode × connections: the floor (`POST /bench/floor`, one INSERT), floor-verify
 *    (`POST /bench/floor-verify`: authorize's body, one signature verified, one INSERT: what any authorize must
 *    do at the least), authorize, floor-verify again, bind and the floor again, each a warm-up then a measured
 *    run of --seconds, pipelining 1; each floor is the mean of its two runs (./support/bracket.ts), which
 *    bracket the route measured against it. Bind binds traces that authorize created, each once.
 * 5. In the first scenario also: noop, floor-5rt (five round trips), the service time over one connection, and
 *    profiles.
 * 6. With --history: N traces of history stored, then the first scenario again (the scale run).
 * 7. Prints a summary against the targets (authorize ≥ 0.75 × floor-verify, bind ≥ 0.6 × the floor, both p99
 *    < 4 × the floor's, RSS < 300 MB a worker; information, never a failure), each scenario's table, where the
 *    CPU and the SQL went, and writes the same to bench/results/engine-latest.json.
 *
 * Fails (exit 1) only when the benchmark is not measuring what it says: more than --max-error-share of a
 * run's requests got no 2xx (the first error bodies are printed), or the setup failed.
 */
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { heartbeatMessage, type HeartbeatFields } from '../src/engine/heartbeat/message.js';
import { newTokenSecret } from '../src/engine/store/tokens.js';
import { serveWorkers } from '../src/http/cluster/count.js';
import { seedHistory } from './support/history.js';
import { startServer, type Server } from './support/server.js';
import { runLoad, type ConnectionPlan, type LoadResult, type LoadSpec } from './support/load.js';
import { openBenchDatabase, type BenchDatabase } from './support/pg.js';
import { cpuSnapshot, cpuUse, type CpuUse } from './support/proc.js';
import { bracketed } from './support/bracket.js';
import { summarizeProfile, type CpuProfile, type ProfileSummary } from './support/profile.js';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.dirname(BENCH_DIR);
const MODEL_HASH = 'a'.repeat(64);
/** Authorize's req/s against floor-verify's (its body, one signature verified, one INSERT: what any authorize must do). */
const TARGET_AUTHORIZE_RELATIVE = 0.75;
/** Bind's req/s against the 1-INSERT floor's. */
const TARGET_BIND_RELATIVE = 0.6;
const FLOOR_NAME = 'POST /bench/floor (1 INSERT)';
const VERIFY_FLOOR_NAME = 'POST /bench/floor-verify (verify + 1 INSERT)';
/** p99 of authorize and bind against the floor's p99 in the same scenario. */
const TARGET_P99_RATIO = 4;
/** Resident memory of each serving process under load. */
const TARGET_RSS_MB = 300;
/** The scale run against the empty store's figures, ± percent. */
const TARGET_SCALE_PCT = 10;
/** The latency of one request on an idle engine (the service-time runs). */
const TARGET_SERVICE_P99_MS = 15;

// ---------------------------------------------------------------------------------------------- options

/** How commits are made: durable (fsync, synchronous_commit and full_page_writes on) or not. */
export type Mode = 'durable' | 'non-durable';

interface Options {
  seconds: number;
  warmup: number;
  /** The connection counts to measure at, in order (the first is the headline). */
  connections: number[];
  /** The engine server's process counts to measure at (node:cluster workers); null: `serve`'s default where the database is. */
  workers: number[] | null;
  /** Commit modes, in order (the first is the headline). */
  modes: Mode[];
  /** Store connections of the whole server at each connection count (default: as many as the load's). */
  pool: number | null;
  /** Agents registered, each with its own token; the connections take turns among them. */
  agents: number;
  /** Traces of history to store before the scale run (0: no scale run), over `historyMonths` months. */
  history: number;
  historyMonths: number;
  profile: boolean;
  /** Also measure the service time over one connection. */
  single: boolean;
  maxErrorShare: number;
  out: string;
}

function options(): Options {
  // Benchmark harness settings (BENCH_*), not tradeseal's: src/config.ts reads those.
  const env = process.env;
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string' }, warmup: { type: 'string' }, connections: { type: 'string' }, pool: { type: 'string' },
      workers: { type: 'string' }, agents: { type: 'string' }, modes: { type: 'string' }, history: { type: 'string' }, 'history-months': { type: 'string' }, profile: { type: 'boolean' }, 'no-single': { type: 'boolean' }, 'max-error-share': { type: 'string' }, out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0]);
    process.exit(0);
  }
  const num = (flag: string | undefined, envValue: string | undefined, fallback: number, min: number, name: string): number => {
    const raw = flag ?? envValue;
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number >= ${min}, got ${raw}`);
    return n;
  };
  const flag = (v: boolean | undefined, e: string | undefined): boolean => v ?? ['1', 'true', 'yes', 'on'].includes((e ?? '').toLowerCase());
  const list = (flagValue: string | undefined, envValue: string | undefined, fallback: string, name: string): number[] =>
    (flagValue ?? envValue ?? fallback).split(',').map((part) => {
      const n = Number(part.trim());
      if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a comma-separated list of whole numbers >= 1, got ${flagValue ?? envValue}`);
      return n;
    });
  const modes = (values.modes ?? env.BENCH_MODES ?? 'durable,non-durable').split(',').map((m) => m.trim());
  for (const m of modes) if (m !== 'durable' && m !== 'non-durable') throw new Error(`modes must list durable and/or non-durable, got ${m}`);
  const pool = values.pool ?? env.BENCH_POOL;
  return {
    seconds: num(values.seconds, env.BENCH_SECONDS, 10, 1, 'seconds'),
    warmup: num(values.warmup, env.BENCH_WARMUP_SECONDS, 2, 0, 'warmup'),
    connections: list(values.connections, env.BENCH_CONNECTIONS, '50,100', 'connections'),
    workers: values.workers ?? env.BENCH_WORKERS ? list(values.workers, env.BENCH_WORKERS, '1', 'workers') : null,
    modes: modes as Mode[],
    pool: pool === undefined || pool === '' ? null : Math.round(num(pool, undefined, 50, 1, 'pool')),
    agents: Math.round(num(values.agents, env.BENCH_AGENTS, 600, 1, 'agents')),
    history: Math.round(num(values.history, env.BENCH_HISTORY, 0, 0, 'history')),
    historyMonths: Math.round(num(values['history-months'], env.BENCH_HISTORY_MONTHS, 36, 1, 'history-months')),
    profile: flag(values.profile, env.BENCH_PROFILE),
    single: !flag(values['no-single'], env.BENCH_NO_SINGLE),
    maxErrorShare: num(values['max-error-share'], env.BENCH_MAX_ERROR_SHARE, 0.01, 0, 'max-error-share'),
    out: path.resolve(values.out ?? env.BENCH_OUT ?? path.join(BENCH_DIR, 'results', 'engine-latest.json')),
  };
}

const log = (line: string): void => {
  process.stderr.write(`[bench] ${line}\n`);
};


// ---------------------------------------------------------------------------------------------- setup over HTTP

async function call(url: string, token: string, method: string, route: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url + route, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { text };
  }
  return { status: res.status, json };
}

async function expectOk(p: Promise<{ status: number; json: Record<string, unknown> }>, what: string): Promise<Record<string, unknown>> {
  const res = await p;
  if (res.status < 200 || res.status > 299) throw new Error(`${what}: expected a 2xx, got ${res.status} ${JSON.stringify(res.json)}`);
  return res.json;
}

interface Agent {
  index: number;
  agentId: string;
  token: string;
  /** The last heartbeat sequence_id sent for this agent (strictly increasing, across every run). */
  sequence: number;
  /** Heartbeats signed before a measured run, in sequence order, used first (see `presign`). */
  presigned: SignedHeartbeat[];
}

interface SignedHeartbeat {
  fields: HeartbeatFields;
  signature: string;
}

/** The next heartbeat of `agent`, signed now. */
function signHeartbeat(agent: Agent, regime: Regime, operatorKey: KeyObject): SignedHeartbeat {
  const fields: HeartbeatFields = { sequence_id: ++agent.sequence, timestamp_ms: Date.now(), regime_id: regime.regimeId, mta_ref: regime.hash };
  return { fields, signature: `ed25519:${sign(null, heartbeatMessage(fields, 'ed25519'), operatorKey).toString('base64')}` };
}

/**
 * Signs `perAgent` heartbeats for each agent ahead of a measured run. In production the signal service signs
 * heartbeats on its own machine; here the load generator stands in for it on the engine's cores, so the
 * signing is done before the clock starts (about 50 µs a signature) rather than charged to the engine. They
 * are used within the run, well inside the replay window (HEARTBEAT_REPLAY_WINDOW_MS, 30 s); what is left
 * after a run is dropped (a gap in sequence_ids is allowed).
 */
function presign(agents: Agent[], perAgent: number, regime: Regime, operatorKey: KeyObject): void {
  for (const agent of agents) {
    agent.presigned = [];
    for (let i = 0; i < perAgent; i++) agent.presigned.push(signHeartbeat(agent, regime, operatorKey));
  }
}

interface Regime {
  regimeId: number;
  hash: string;
}

// ---------------------------------------------------------------------------------------------- the routes' loads

function noopSpec(): LoadSpec {
  return { name: 'GET /bench/noop', method: 'GET', path: '/bench/noop', connection: () => ({ next: () => ({}) }) };
}

function floorSpec(): LoadSpec {
  const body = JSON.stringify({ payload: 'bench floor row' });
  return { name: FLOOR_NAME, method: 'POST', path: '/bench/floor', connection: () => ({ next: () => ({ body }) }) };
}

function roundTripsSpec(): LoadSpec {
  const body = JSON.stringify({ payload: 'bench floor row' });
  return { name: 'POST /bench/floor-5rt (diagnostic)', method: 'POST', path: '/bench/floor-5rt', connection: () => ({ next: () => ({ body }) }) };
}

/**
 * Authorize's bodies (each with a fresh client_order_id and a presigned heartbeat) sent to the lower-bound
 * route: one signature verified, one INSERT. The heartbeats are taken from the agents' presigned stock, as
 * authorize's are; the route records no sequence, and authorize's later heartbeats carry higher ones.
 */
function verifyFloorSpec(agents: Agent[], regime: Regime, operatorKey: KeyObject, connections: number): LoadSpec {
  const plan = authorizeSpec(agents, regime, operatorKey, [], connections);
  return { ...plan, name: VERIFY_FLOOR_NAME, path: '/bench/floor-verify' };
}

interface PendingTrace {
  traceId: string;
  agent: Agent;
}

function authorizeSpec(agents: Agent[], regime: Regime, operatorKey: KeyObject, traces: PendingTrace[], connections: number): LoadSpec {
  return {
    name: 'POST /engine/authorize',
    method: 'POST',
    path: '/engine/authorize',
    connection(index): ConnectionPlan {
      // Connection i takes turns among agents i, i + connections, …: an agent's requests never overlap (so its
      // heartbeats arrive in order), and each agent sends few enough orders per second that the default
      // policy's message throttle refuses none.
      const mine = agents.filter((_, j) => j % connections === index % connections);
      let turn = 0;
      // The agents of the requests sent and not yet answered, oldest first (one, with pipelining 1).
      const sent: Agent[] = [];
      return {
        next() {
          const agent = mine[turn++ % mine.length] as Agent;
          sent.push(agent);
          const headers = { authorization: `Bearer ${agent.token}` };
          const now = Date.now();
          const { fields, signature } = agent.presigned.shift() ?? signHeartbeat(agent, regime, operatorKey);
          return {
            headers,
            body: JSON.stringify({
              agent_id: agent.agentId, model_hash_hex: MODEL_HASH, model_id: 'alpha-7', prompt_version: 'p-3', feature_schema_id: 'fs-1',
              hyperparameter_checksum: 'h-9', action: 'Long', asset: 'AAPL', order_type: 'Limit', venue_id: 'XNAS',
              quantity: 100, limit_price: 190, notional: 19_000, client_order_id: randomUUID(), agent_valid_time: now,
              heartbeat: { ...fields, signature },
            }),
          };
        },
        onOk(body) {
          const agent = sent.shift();
          const traceId = /"trace_id":"([0-9a-f-]{36})"/.exec(body)?.[1];
          if (traceId && agent) traces.push({ traceId, agent });
        },
        onError() {
          sent.shift();
        },
      };
    },
  };
}

/** Binds each pending trace once. Out of traces (should not happen: the pool is sized first), it stops the run. */
function bindSpec(traces: PendingTrace[], state: { exhausted: boolean; stop: (() => void) | null }): LoadSpec {
  let txCounter = 0;
  let last: PendingTrace | undefined;
  return {
    name: 'POST /engine/bind-execution',
    method: 'POST',
    path: '/engine/bind-execution',
    connection(): ConnectionPlan {
      return {
        next() {
          let t = traces.pop();
          if (!t) {
            // Re-binding answers 409: it shows up as errors, and the run ends at autocannon's next tick.
            if (!state.exhausted) {
              state.exhausted = true;
              state.stop?.();
            }
            t = last as PendingTrace;
          }
          last = t;
          return {
            headers: { authorization: `Bearer ${t.agent.token}` },
            body: JSON.stringify({
              trace_id: t.traceId, exchange_tx_id: `XBENCH-${++txCounter}`, execution_status: 'Filled', asset: 'AAPL',
              executed_quantity: 100, executed_side: 'Long', execution_price: 190, execution_time_ms: Date.now(),
            }),
          };
        },
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------- SQL statistics

interface StatementLine {
  query: string;
  calls: number;
  perRequest: number;
  meanMs: number;
  totalMs: number;
}

interface StatementStats {
  /** Statements (round trips) per 2xx request, background refreshes included. */
  perRequest: number;
  /** Server-side execution time per 2xx request, ms (not counting parse, network, or waiting for a connection). */
  execMsPerRequest: number;
  top: StatementLine[];
}

async function resetStatements(admin: postgres.Sql | null): Promise<void> {
  if (!admin) return;
  await admin`select pg_stat_statements_reset()`;
}

async function readStatements(admin: postgres.Sql | null, requests: number): Promise<StatementStats | null> {
  if (!admin || requests === 0) return null;
  const rows = await admin<Array<{ query: string; calls: number; total_exec_time: number; mean_exec_time: number }>>`
    select query, calls::int as calls, total_exec_time, mean_exec_time from pg_stat_statements
    where dbid = (select oid from pg_database where datname = current_database())
      and query not ilike '%pg_stat_statements%' and query not ilike 'checkpoint%'
    order by calls desc, total_exec_time desc`;
  const calls = rows.reduce((s, r) => s + r.calls, 0);
  const exec = rows.reduce((s, r) => s + r.total_exec_time, 0);
  return {
    perRequest: calls / requests,
    execMsPerRequest: exec / requests,
    top: rows
      .filter((r) => r.calls / requests >= 0.01)
      .slice(0, 10)
      .map((r) => ({ query: r.query.replace(/\s+/g, ' ').trim(), calls: r.calls, perRequest: r.calls / requests, meanMs: r.mean_exec_time, totalMs: r.total_exec_time })),
  };
}

// ---------------------------------------------------------------------------------------------- runs

interface Measured {
  route: string;
  result: LoadResult;
  /** 2xx responses the server produced during the run and its drain (the per-request denominators). */
  handled: number;
  cpu: CpuUse;
  /** The share of the run the server's main threads were busy (event-loop utilisation, averaged over workers). */
  loopBusy: number | null;
  statements: StatementStats | null;
  note: string | null;
}

class BenchFailure extends Error {}

function checkErrors(r: LoadResult, phase: string, maxShare: number): void {
  const failed = r.non2xx + r.socketErrors;
  const attempts = r.responses + r.socketErrors;
  if (failed === 0) return;
  const share = failed / Math.max(1, attempts);
  const detail = `${phase}: ${failed} of ${attempts} requests got no 2xx (${(share * 100).toFixed(2)}%; status counts ${JSON.stringify(r.statusCounts)}, socket errors ${r.socketErrors})`;
  const samples = r.errorSamples.map((s) => `    ${s}`).join('\n');
  if (share > maxShare) throw new BenchFailure(`${detail}, above the allowed ${(maxShare * 100).toFixed(2)}%. First errors:\n${samples}`);
  log(`warning: ${detail}. First errors:\n${samples}`);
}

// ---------------------------------------------------------------------------------------------- report

const fmt = (n: number | null | undefined, digits = 1): string => (n === null || n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(digits));

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  const line = (r: string[]): string => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join('  ');
  return [line(rows[0] as string[]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

function versionOf(pkg: string): string {
  try {
    const require = createRequire(import.meta.url);
    return (require(`${pkg}/package.json`) as { version: string }).version;
  } catch {
    return '?';
  }
}

// ---------------------------------------------------------------------------------------------- main

/** One point of the matrix: how commits are made, how many server processes, how many connections. */
interface Scenario {
  mode: Mode;
  workers: number;
  connections: number;
  /** Store connections of the whole server. */
  pool: number;
  /** Traces stored before the run (the scale run), else 0. */
  history: number;
}

interface ScenarioResult {
  scenario: Scenario;
  settings: Record<string, string>;
  /** The diagnostic routes (noop, floor-5rt): measured in the first scenario only. */
  noop: Measured | null;
  roundTrips: Measured | null;
  /** Authorize's own floor, in every scenario: the mean of its runs before and after authorize's. */
  verifyFloor: Measured;
  /** The 1-INSERT floor: the mean of its runs at the scenario's start and after bind's. */
  floor: Measured;
  /** Each floor's two runs, before and after. */
  floorRuns: [Measured, Measured];
  verifyFloorRuns: [Measured, Measured];
  authorize: Measured;
  bind: Measured;
  /** Peak resident memory of each serving process during the scenario's measured runs (VmHWM), MB. */
  rssPeakMb: number[];
  /** Whether the peak is the scenario's own (reset at its start), not the process's since it started. */
  peakOwn: boolean;
}

const label = (s: Scenario): string =>
  `${s.mode}, ${s.workers} worker${s.workers === 1 ? '' : 's'}, ${s.connections} connections${s.history > 0 ? `, ${s.history.toLocaleString('en-US')} traces stored` : ''}`;

/** Peak resident set of a process (VmHWM), MB; null where /proc cannot tell. */
function peakRssMb(pid: number): number | null {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
    return line ? Number(line.replace(/\D+/g, '')) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Starts a process's peak resident set (VmHWM) again from its present size (Linux: `5` written to
 * /proc/PID/clear_refs), so that each scenario's peak is its own; false where the kernel does not allow it (then
 * the peak is the process's since it started, which the report says).
 */
function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Switches the cluster's commits to durable or not (ALTER SYSTEM and a reload: fsync and the rest are reloadable). */
async function setMode(admin: postgres.Sql, mode: Mode): Promise<void> {
  const value = mode === 'durable' ? 'on' : 'off';
  for (const name of ['fsync', 'synchronous_commit', 'full_page_writes']) await admin.unsafe(`alter system set ${name} = ${value}`);
  await admin`select pg_reload_conf()`;
  // The reload reaches the backends at their next command; wait until this one sees it.
  for (let i = 0; i < 50; i++) {
    const [row] = await admin<Array<{ fsync: string }>>`select current_setting('fsync') as fsync`;
    if (row?.fsync === value) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the cluster did not switch to ${mode} commits`);
}

async function main(): Promise<void> {
  const opt = options();
  const loadBefore = os.loadavg();
  const cpus = os.cpus();
  const machine = {
    cores: cpus.length,
    cpu: cpus[0]?.model ?? '?',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    postgres: '?',
  };
  const cleanups: Array<() => Promise<void>> = [];
  const cleanup = async (): Promise<void> => {
    for (const fn of cleanups.reverse()) await fn().catch(() => {});
    cleanups.length = 0;
  };
  process.once('SIGINT', () => {
    log('interrupted: tearing down');
    void cleanup().finally(() => process.exit(130));
  });

  try {
    // 1. The database. A throwaway cluster starts durable; each mode is switched on before its runs.
    const serverUrl = process.env.DATABASE_URL && process.env.DATABASE_URL !== '' ? process.env.DATABASE_URL : null;
    const maxConnections = Math.max(...opt.connections.map((c) => opt.pool ?? c));
    log(serverUrl ? 'creating a scratch database on the server of DATABASE_URL…' : 'starting a throwaway PostgreSQL cluster…');
    const db: BenchDatabase = await openBenchDatabase({ serverUrl, durable: true, maxConnections: maxConnections + 40 });
    cleanups.push(() => db.drop());
    machine.postgres = db.version;
    const admin = postgres(db.url, { max: 1, onnotice: () => {} });
    cleanups.push(() => admin.end({ timeout: 5 }));
    // On a server of DATABASE_URL its settings are its own: one mode, as it is.
    const modes: Mode[] = serverUrl ? [(await admin<Array<{ f: string }>>`select current_setting('fsync') as f`)[0]?.f === 'on' ? 'durable' : 'non-durable'] : opt.modes;
    const readSettings = async (): Promise<Record<string, string>> => Object.fromEntries((await admin<Array<{ name: string; setting: string; unit: string | null }>>`
      select name, setting, unit from pg_settings
      where name in ('fsync', 'synchronous_commit', 'full_page_writes', 'max_connections', 'shared_buffers')`)
      .map((r) => [r.name, r.unit && r.unit !== '' ? `${r.setting}×${r.unit}` : r.setting]));
    const stats = db.statements ? admin : null;

    const operator = generateKeyPairSync('ed25519');
    const operatorPublicHex = (operator.publicKey.export({ format: 'der', type: 'spki' }) as Buffer).subarray(-32).toString('hex');
    // The default policy as shipped, its message throttle included.
    const policyPath = path.join(REPO, 'data/policy/default.json');
    const throttle = (JSON.parse(readFileSync(policyPath, 'utf8')) as { max_orders_per_second?: number | null }).max_orders_per_second ?? null;
    const agentCount = Math.max(opt.agents, ...opt.connections);

    const ownerSecret = newTokenSecret();
    const agents: Agent[] = [];
    let regime: Regime | null = null;
    let ownerToken = '';
    const traces: PendingTrace[] = [];
    const bindState: { exhausted: boolean; stop: (() => void) | null } = { exhausted: false, stop: null };
    const results: ScenarioResult[] = [];
    const single: LoadResult[] = [];
    const profiles: Profiled[] = [];

    /** Runs `body` with the engine server at `workers` processes and a pool of `pool` connections. */
    const withServer = async <T>(workers: number, pool: number, body: (server: Server) => Promise<T>): Promise<T> => {
      log(`starting the engine server (${workers} worker${workers === 1 ? '' : 's'}, pool of ${pool} connections)…`);
      const server = await startServer({
        DATABASE_URL: db.url, LAYER2_ENABLED: 'true', REGIME_OPERATOR_PUBKEY: operatorPublicHex, POLICY_PATH: policyPath,
        LOG_LEVEL: 'silent', BENCH_POOL: String(pool), BENCH_WORKERS: String(workers), BENCH_OWNER_TOKEN: ownerSecret,
      });
      try {
        if (!regime) {
          // 2. Once: a regime, and one agent with its own client token per connection of the largest run.
          ownerToken = server.ownerToken;
          const published = await expectOk(call(server.url, ownerToken, 'POST', '/engine/admin/regime', { regime: 'expansion', risk_score: 0.2, reason: 'benchmark' }), 'publish regime');
          regime = { regimeId: published.regime_id as number, hash: published.hash as string };
        }
        if (agents.length < agentCount) log(`registering ${agentCount} agents, each with its own client token…`);
        for (let i = agents.length; i < agentCount; i++) {
          const a = await expectOk(call(server.url, ownerToken, 'POST', '/engine/admin/agents', {
            name: `bench-agent-${i}`, max_notional: 1_000_000, models: [{ model_id: 'alpha-7', model_hash_hex: MODEL_HASH }],
          }), 'register agent');
          const t = await expectOk(call(server.url, ownerToken, 'POST', '/engine/admin/tokens', { client_name: `bench-agent-${i}`, agent_ids: [a.agent_id] }), 'issue token');
          agents.push({ index: i, agentId: a.agent_id as string, token: t.token as string, sequence: 0, presigned: [] });
        }
        await admin`analyze`;
        return await body(server);
      } finally {
        await server.stop();
      }
    };

    const runScenario = async (server: Server, scenario: Scenario, first: boolean): Promise<ScenarioResult> => {
      log(`— ${label(scenario)}`);
      const peakOwn = server.workerPids.map(resetPeakRss).every(Boolean);
      const specs = {
        noop: noopSpec(),
        floor: floorSpec(),
        roundTrips: roundTripsSpec(),
        verifyFloor: verifyFloorSpec(agents, regime as Regime, operator.privateKey, scenario.connections),
        authorize: authorizeSpec(agents, regime as Regime, operator.privateKey, traces, scenario.connections),
        bind: bindSpec(traces, bindState),
      };
      const load = { url: server.url, connections: scenario.connections };
      const serverPid = server.child.pid as number;
      interface MeasureOptions {
        warmup?: boolean;
        note?: () => string | null;
        onInstance?: (stop: () => void) => void;
      }
      const measure = async (spec: LoadSpec, { warmup = true, note = () => null, onInstance }: MeasureOptions = {}): Promise<Measured> => {
        if (warmup && opt.warmup > 0) {
          log(`${spec.name}: warm-up ${opt.warmup} s`);
          checkErrors(await runLoad(spec, { ...load, seconds: opt.warmup, ...(onInstance ? { onInstance } : {}) }), `${spec.name} warm-up`, opt.maxErrorShare);
        }
        await server.drain();
        await admin`checkpoint`.catch(() => {});
        await resetStatements(stats);
        log(`${spec.name}: measuring ${opt.seconds} s`);
        const key = `${spec.method} ${spec.path} 2xx`;
        const countsBefore = await server.counts();
        const before = cpuSnapshot(serverPid, db.postmasterPid);
        const result = await runLoad(spec, { ...load, seconds: opt.seconds, ...(onInstance ? { onInstance } : {}) });
        const countsAfter = await server.drain();
        const after = cpuSnapshot(serverPid, db.postmasterPid);
        // Per-request figures divide by what the server answered with a 2xx, the run's last requests included.
        const handled = (countsAfter.finished[key] ?? 0) - (countsBefore.finished[key] ?? 0);
        const statements = await readStatements(stats, handled);
        checkErrors(result, spec.name, opt.maxErrorShare);
        const active = countsAfter.loop.activeMs - countsBefore.loop.activeMs;
        const idle = countsAfter.loop.idleMs - countsBefore.loop.idleMs;
        const loopBusy = active + idle > 0 ? active / (active + idle) : null;
        return { route: spec.name, result, handled, cpu: cpuUse(before, after, handled), loopBusy, statements, note: note() };
      };
      /** Creates pending traces through authorize (unmeasured) until `count` are waiting to be bound. */
      const preCreate = async (count: number): Promise<void> => {
        const missing = count - traces.length;
        if (missing <= 0) return;
        const amount = Math.max(missing, scenario.connections);
        log(`pre-creating ${amount} pending traces through authorize for the bind run…`);
        checkErrors(await runLoad(specs.authorize, { ...load, amount }), 'authorize (pre-creating traces for bind)', opt.maxErrorShare);
      };

      const noop = first ? await measure(specs.noop) : null;
      const floorBefore = await measure(specs.floor);
      const roundTrips = first ? await measure(specs.roundTrips) : null;
      // Enough heartbeats for authorize's warm-up and measured run at up to 1.3 x the floor's rate, signed
      // before them (more are signed on demand, and counted); at most 20 s worth, so that none is older than
      // the replay window when used; what is left is dropped.
      const presignPerAgent = Math.ceil((floorBefore.result.rps * 1.3 * Math.min(opt.seconds + opt.warmup, 20)) / agents.length);
      log(`signing ${(presignPerAgent * agents.length).toLocaleString('en-US')} heartbeats ahead of the authorize run…`);
      // Authorize's own floor, in every scenario: its target is relative to this route's rate.
      presign(agents, presignPerAgent, regime as Regime, operator.privateKey);
      const verifyBefore = await measure(specs.verifyFloor);
      const signedBefore = agents.reduce((n, a) => n + a.sequence, 0);
      presign(agents, presignPerAgent, regime as Regime, operator.privateKey);
      const authorize = await measure(specs.authorize, {
        note: () => {
          const signedDuring = agents.reduce((n, a) => n + a.sequence, 0) - signedBefore - presignPerAgent * agents.length;
          for (const a of agents) a.presigned = [];
          return signedDuring > 0 ? `${signedDuring} heartbeats were signed during the warm-up or the run (the ones signed ahead ran out)` : null;
        },
      });
      // floor-verify again, after authorize: its two runs bracket authorize's.
      presign(agents, presignPerAgent, regime as Regime, operator.privateKey);
      const verifyAfter = await measure(specs.verifyFloor);
      for (const a of agents) a.presigned = [];

      // Bind needs one pending trace per request: the warm-up's supply is sized from the floor's rate, the
      // measured run's from the warm-up's rate (x 2; at least the floor's rate). The newest traces are bound first (a stack), as an
      // exchange confirms the orders it just received.
      const margin = 4 * scenario.connections;
      await preCreate(Math.ceil(floorBefore.result.rps * Math.max(opt.warmup, 1) * 1.3) + margin);
      let bindWarmRps = 0;
      if (opt.warmup > 0) {
        log(`${specs.bind.name}: warm-up ${opt.warmup} s`);
        const warm = await runLoad(specs.bind, { ...load, seconds: opt.warmup, onInstance: (stop) => { bindState.stop = stop; } });
        checkErrors(warm, `${specs.bind.name} warm-up`, opt.maxErrorShare);
        bindWarmRps = warm.rps;
        bindState.exhausted = false;
      }
      const expectedBindRps = Math.max(bindWarmRps * 2, authorize.result.rps * 1.5, floorBefore.result.rps);
      await preCreate(Math.ceil(expectedBindRps * opt.seconds) + margin);
      const tracesBeforeBind = traces.length;
      const bind = await measure(specs.bind, {
        warmup: false, // done above, before sizing the supply of traces
        note: () => (bindState.exhausted ? `ran out of pending traces (${tracesBeforeBind} prepared): the run stopped early and re-binds answered 409` : null),
        onInstance: (stop) => { bindState.stop = stop; },
      });
      // The floor again, after bind: its two runs bracket authorize's and bind's.
      const floorAfter = await measure(specs.floor);
      const floor = bracketed(floorBefore, floorAfter);
      const verifyFloor = bracketed(verifyBefore, verifyAfter);

      if (first && opt.single) {
        // Service time: the same routes over a single connection, so no request waits behind another. At
        // N connections a closed-loop generator keeps N requests in the system, and mean latency is
        // N / throughput (Little's law) whatever the engine does; this is the latency of one request on an
        // otherwise idle engine.
        const one = { url: server.url, connections: 1, seconds: opt.seconds };
        log(`service time: ${opt.seconds} s per route over 1 connection`);
        const floorOne = await runLoad(specs.floor, one);
        checkErrors(floorOne, `${specs.floor.name} (1 connection)`, opt.maxErrorShare);
        // One connection takes turns among every agent, so that none exceeds the throttle alone.
        const authOne = await runLoad(authorizeSpec(agents, regime as Regime, operator.privateKey, traces, 1), one);
        checkErrors(authOne, `${specs.authorize.name} (1 connection)`, opt.maxErrorShare);
        await preCreate(Math.ceil(floorOne.rps * opt.seconds * 1.3) + margin);
        bindState.exhausted = false;
        const bindOne = await runLoad(specs.bind, { ...one, onInstance: (stop) => { bindState.stop = stop; } });
        checkErrors(bindOne, `${specs.bind.name} (1 connection)`, opt.maxErrorShare);
        single.push(floorOne, authOne, bindOne);
      }

      // Read before the profiled runs: the profiler's own buffers are not the server's.
      const rssPeakMb = server.workerPids.map((pid) => peakRssMb(pid) ?? Number.NaN);
      if (first && opt.profile) {
        // CPU profiles of the server during more runs (unmeasured: profiling slows the server), of the
        // 5-round-trip floor, floor-verify, authorize and bind, so that their costs per request can be set side
        // by side (authorize's target is relative to floor-verify).
        mkdirSync(path.dirname(opt.out), { recursive: true });
        for (const [slug, spec] of [['floor-5rt', specs.roundTrips], ['floor-verify', specs.verifyFloor], ['authorize', specs.authorize], ['bind', specs.bind]] as const) {
          if (spec === specs.bind) {
            await preCreate(Math.ceil(expectedBindRps * opt.seconds) + margin);
            bindState.exhausted = false;
          }
          const file = path.join(path.dirname(opt.out), `${slug}.cpuprofile`);
          log(`${spec.name}: profiling the server for ${opt.seconds} s`);
          await server.drain();
          const key = `${spec.method} ${spec.path} 2xx`;
          const before = await server.counts();
          await server.request({ type: 'profile-start' }, 'profile-started');
          const r = await runLoad(spec, { ...load, seconds: opt.seconds, ...(spec === specs.bind ? { onInstance: (stop: () => void) => { bindState.stop = stop; } } : {}) });
          const after = await server.drain();
          await server.request({ type: 'profile-stop', file }, 'profile-written');
          checkErrors(r, `${spec.name} (profiled)`, opt.maxErrorShare);
          // With several workers the profile is the first worker's: its share of the requests.
          const handled = ((after.finished[key] ?? 0) - (before.finished[key] ?? 0)) / server.workerPids.length;
          profiles.push({ route: spec.name, file, handled, summary: summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, 20) });
        }
      }
      return {
        scenario, settings: await readSettings(), noop, roundTrips, verifyFloor, floor, floorRuns: [floorBefore, floorAfter], verifyFloorRuns: [verifyBefore, verifyAfter],
        authorize, bind, rssPeakMb, peakOwn,
      };
    };

    // 3. The matrix: for each server size, each commit mode, each connection count. By default the server size
    // is `tradeseal serve`'s default for this database (src/http/cluster/count.ts): what a new user gets.
    const workerCounts = opt.workers ?? [serveWorkers(undefined, { serveWorkers: null, databaseUrl: db.url })];
    for (const workers of workerCounts) {
      const pools = opt.connections.map((c) => opt.pool ?? c);
      await withServer(workers, Math.max(...pools), async (server) => {
        for (const mode of modes) {
          if (!serverUrl) await setMode(admin, mode);
          for (const connections of opt.connections) {
            results.push(await runScenario(server, { mode, workers, connections, pool: Math.max(...pools), history: 0 }, results.length === 0));
          }
        }
      });
    }

    // 4. The scale run: the headline scenario again over a store holding years of history.
    let scale: ScenarioResult | null = null;
    if (opt.history > 0) {
      const head = results[0] as ScenarioResult;
      // The history is written without durable commits (faster; it is not what is measured), then the
      // headline scenario's mode is set again for the run. Three connections let the chunks go in parallel.
      if (!serverUrl) await setMode(admin, 'non-durable');
      log(`storing ${opt.history.toLocaleString('en-US')} traces over ${opt.historyMonths} months for the scale run…`);
      const started = Date.now();
      const seeder = postgres(db.url, { max: 3, onnotice: () => {} });
      cleanups.push(() => seeder.end({ timeout: 5 }));
      await seedHistory(seeder, { traces: opt.history, months: opt.historyMonths, agents: agents.map((a) => a.agentId), now: new Date(),
        onProgress: (p) => log(`  ${p.traces.toLocaleString('en-US')} of ${p.total.toLocaleString('en-US')} traces`) });
      log(`stored in ${((Date.now() - started) / 1000).toFixed(0)} s`);
      await seeder.end({ timeout: 5 });
      if (!serverUrl) await setMode(admin, head.scenario.mode);
      await withServer(head.scenario.workers, head.scenario.pool, async (server) => {
        scale = await runScenario(server, { ...head.scenario, history: opt.history }, false);
      });
    }

    report(opt, loadBefore, machine, db, { throttle, agents: agents.length, results, scale, single }, profiles);
  } finally {
    await cleanup();
  }
}

// ---------------------------------------------------------------------------------------------- output

interface Profiled {
  route: string;
  file: string;
  /** 2xx responses the profiled process answered during the profiled run. */
  handled: number;
  summary: ProfileSummary;
}

interface Runs {
  throttle: number | null;
  agents: number;
  results: ScenarioResult[];
  scale: ScenarioResult | null;
  /** Floor, authorize and bind over one connection (empty with --no-single). */
  single: LoadResult[];
}

interface Target {
  route: string;
  /** The route whose req/s the target is relative to, and the least ratio. */
  against: string;
  min: number;
  relative: number;
  throughputMet: boolean;
  p99: number;
  p99Ratio: number;
  p99Met: boolean;
}

/** Authorize against floor-verify, bind against the 1-INSERT floor; both p99s against the 1-INSERT floor's. */
function targetsOf(r: ScenarioResult): Target[] {
  const floor = r.floor.result;
  return ([[r.authorize, r.verifyFloor, TARGET_AUTHORIZE_RELATIVE], [r.bind, r.floor, TARGET_BIND_RELATIVE]] as const).map(([m, against, min]) => {
    const relative = m.result.rps / against.result.rps;
    const p99Ratio = m.result.latency.p99 / floor.latency.p99;
    return { route: m.route, against: against.route, min, relative, throughputMet: relative >= min, p99: m.result.latency.p99, p99Ratio, p99Met: p99Ratio < TARGET_P99_RATIO };
  });
}

function scenarioReport(r: ScenarioResult, db: BenchDatabase, detail: boolean): string[] {
  const floorRps = r.floor.result.rps;
  const all = [r.noop, r.floor, r.roundTrips, r.verifyFloor, r.authorize, r.bind].filter((m): m is Measured => m !== null);
  const relative = (m: Measured): number => m.result.rps / floorRps;
  const errors = (m: Measured): number => m.result.non2xx + m.result.socketErrors;
  const out: string[] = [];
  out.push('');
  out.push(`== ${label(r.scenario)} (pool ${r.scenario.pool}; ${Object.entries(r.settings).filter(([k]) => ['fsync', 'synchronous_commit', 'full_page_writes'].includes(k)).map(([k, v]) => `${k}=${v}`).join(', ')})`);
  out.push(table([
    ['route', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs floor'],
    ...all.map((m) => [m.route, fmt(m.result.rps, 0), fmt(m.result.latency.p50, 2), fmt(m.result.latency.p99, 2), String(errors(m)), `${fmt(relative(m), 2)}x`]),
  ]));
  for (const m of all) if (m.note) out.push(`note: ${m.route}: ${m.note}`);
  const runs = (pair: [Measured, Measured]): string => `${pair.map((m) => fmt(m.result.rps, 0)).join(' then ')} req/s (${fmt(((pair[1].result.rps / pair[0].result.rps) - 1) * 100, 1)}%)`;
  out.push(`each floor is the mean of a run before and a run after the routes measured against it: the floor ${runs(r.floorRuns)}, floor-verify ${runs(r.verifyFloorRuns)}`);
  out.push(`server RSS, peak per worker${r.peakOwn ? ' during this scenario' : ' since it started'}: ${r.rssPeakMb.map((v) => `${fmt(v, 0)} MB`).join(', ')} (target < ${TARGET_RSS_MB} MB)`);
  out.push('');
  out.push('where the time goes (CPU ms per 2xx request; machine busy = share of all cores in use during the run)');
  out.push(table([
    ['route', 'server', 'postgres', 'loadgen', 'other', 'total', 'busy', 'loop', 'others', 'SQL/req', 'SQL exec ms/req'],
    ...all.map((m) => {
      const c = m.cpu;
      const total = [c.serverMsPerReq, c.postgresMsPerReq, c.loadgenMsPerReq, c.otherMsPerReq].reduce<number | null>((s, v) => (s === null || v === null ? s : s + v), 0);
      return [m.route, fmt(c.serverMsPerReq, 3), fmt(c.postgresMsPerReq, 3), fmt(c.loadgenMsPerReq, 3), fmt(c.otherMsPerReq, 3), fmt(total, 3),
        c.machineBusy === null ? '-' : `${fmt(c.machineBusy * 100, 0)}%`, m.loopBusy === null ? '-' : `${fmt(m.loopBusy * 100, 0)}%`,
        c.othersBusy === null ? '-' : `${fmt(c.othersBusy * 100, 0)}%`,
        fmt(m.statements?.perRequest, 2), fmt(m.statements?.execMsPerRequest, 3)];
    }),
  ]));
  const contaminated = all.filter((m) => (m.cpu.othersBusy ?? 0) > 0.1);
  if (contaminated.length > 0) {
    out.push(`  WARNING: other processes used more than 10% of the machine during ${contaminated.map((m) => m.route).join(', ')}:`);
    out.push('  those figures are low and noisy; run again on a quiet machine. The per-request CPU columns are the steadier guide.');
  }
  if (detail) {
    out.push('  server = the engine server\'s processes; postgres = the cluster\'s processes; loadgen = this process (autocannon, request');
    out.push('  building, heartbeat signing); other = the rest of the machine\'s busy time per request; others = its share of all cores;');
    out.push('  loop = the share of the run the server\'s main thread was busy (event-loop utilisation; the mean of the workers\'):');
    out.push('  near 100% the main thread, not the machine, is what limits the route.');
    out.push('  SQL/req: statements per request as pg_stat_statements counts them (each a round trip; it misses the COMMIT');
    out.push('  of a transaction that postgres.js sends through the extended protocol: authorize and bind use no explicit transaction).');
    if (!db.statements) out.push('  (pg_stat_statements is not loaded on this server: no SQL figures)');
    for (const m of [r.authorize, r.bind]) {
      if (!m.statements) continue;
      out.push('');
      out.push(`statements of ${m.route} (pg_stat_statements, per 2xx request):`);
      out.push(table([
        ['per req', 'mean ms', 'statement'],
        ...m.statements.top.map((st) => [fmt(st.perRequest, 2), fmt(st.meanMs, 3), st.query.length > 110 ? `${st.query.slice(0, 110)}…` : st.query]),
      ]));
    }
  }
  return out;
}

function routeJson(m: Measured, floorRps: number): Record<string, unknown> {
  return {
    route: m.route, rps: m.result.rps, latency_ms: m.result.latency, responses: m.result.responses, ok: m.result.ok, server_2xx: m.handled,
    errors: m.result.non2xx + m.result.socketErrors, status_counts: m.result.statusCounts, seconds: m.result.seconds,
    relative_to_floor: m.result.rps / floorRps, cpu_ms_per_request: m.cpu, main_thread_busy: m.loopBusy, statements: m.statements, note: m.note,
  };
}

function scenarioJson(r: ScenarioResult): Record<string, unknown> {
  const floorRps = r.floor.result.rps;
  return {
    mode: r.scenario.mode, durable: r.scenario.mode === 'durable', workers: r.scenario.workers, connections: r.scenario.connections,
    pool: r.scenario.pool, history_traces: r.scenario.history, settings: r.settings, floor_route: r.floor.route,
    routes: [r.noop, r.floor, r.roundTrips, r.verifyFloor, r.authorize, r.bind].filter((m): m is Measured => m !== null).map((m) => routeJson(m, floorRps)),
    targets: targetsOf(r).map((t) => ({ route: t.route, against: t.against, relative: t.relative, min_relative: t.min, throughput: t.throughputMet ? 'MET' : 'NOT MET',
      p99_ms: t.p99, p99_relative_to_floor: t.p99Ratio, max_p99_relative: TARGET_P99_RATIO, p99: t.p99Met ? 'MET' : 'NOT MET' })),
    rss_peak_mb_per_worker: r.rssPeakMb, max_rss_mb: TARGET_RSS_MB,
    floor_runs: { [r.floor.route]: r.floorRuns.map((m) => routeJson(m, floorRps)), [r.verifyFloor.route]: r.verifyFloorRuns.map((m) => routeJson(m, floorRps)) },
  };
}

function report(opt: Options, loadBefore: number[], machine: Record<string, unknown>, db: BenchDatabase, runs: Runs, profiles: Profiled[]): void {
  const out: string[] = [];
  out.push('');
  out.push('tradeseal engine benchmark');
  out.push(`machine: ${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, Node ${machine.node}, ${db.version}, ${machine.os}`);
  out.push(`  the load generator (autocannon ${versionOf('autocannon')}, this process), the engine server (child process and its workers) and PostgreSQL share these ${machine.cores} cores`);
  out.push(`database: ${db.description}`);
  out.push(`load average before the run: ${loadBefore.map((l) => l.toFixed(2)).join(', ')} (1, 5, 15 min)`);
  out.push(`load: pipelining 1, ${opt.seconds} s measured per route after ${opt.warmup} s of warm-up`);
  out.push(`engine: LAYER2_ENABLED=true (a fresh signed heartbeat per authorize), the default policy (message throttle ${runs.throttle ?? 'off'} orders/s per agent),`);
  out.push(`  ${runs.agents} agents with a client token each, taken in turns by the connections (so the throttle refuses none)`);

  // The summary: every scenario on one line each, the targets beside.
  out.push('');
  out.push(`summary (targets: authorize req/s >= ${TARGET_AUTHORIZE_RELATIVE} x floor-verify's, bind req/s >= ${TARGET_BIND_RELATIVE} x the 1-INSERT floor's, both p99 < ${TARGET_P99_RATIO} x the`);
  out.push(`  1-INSERT floor's p99, RSS < ${TARGET_RSS_MB} MB per worker)`);
  const all = [...runs.results, ...(runs.scale ? [runs.scale] : [])];
  out.push(table([
    ['scenario', 'floor req/s', 'floor p99', 'verify req/s', 'authorize req/s', 'x verify', 'p99 x', 'bind req/s', 'x floor', 'p99 x', 'RSS MB', 'targets'],
    ...all.map((r) => {
      const [a, b] = targetsOf(r) as [Target, Target];
      const rssMet = r.rssPeakMb.every((v) => !(v >= TARGET_RSS_MB));
      const met = a.throughputMet && a.p99Met && b.throughputMet && b.p99Met && rssMet;
      return [label(r.scenario), fmt(r.floor.result.rps, 0), fmt(r.floor.result.latency.p99, 1), fmt(r.verifyFloor.result.rps, 0), fmt(r.authorize.result.rps, 0), `${fmt(a.relative, 2)}x`, `${fmt(a.p99Ratio, 2)}x`,
        fmt(r.bind.result.rps, 0), `${fmt(b.relative, 2)}x`, `${fmt(b.p99Ratio, 2)}x`, fmt(Math.max(...r.rssPeakMb), 0), met ? 'MET' : 'NOT MET'];
    }),
  ]));
  if (runs.scale) {
    const head = runs.results[0] as ScenarioResult;
    const change = (m: Measured, base: Measured): string => `${fmt(((m.result.rps / base.result.rps) - 1) * 100, 1)}%`;
    out.push(`scale run against the same scenario on an empty store: authorize ${change(runs.scale.authorize, head.authorize)}, bind ${change(runs.scale.bind, head.bind)} req/s (target: within ±${TARGET_SCALE_PCT}%)`);
  }
  out.push('  read the p99 with Little\'s law in mind: a closed-loop generator keeps N requests in the system, so at saturation mean');
  out.push('  latency = N / req/s whatever the engine does; the p99 target is relative to the floor\'s p99 in the same scenario.');
  for (const [i, r] of all.entries()) out.push(...scenarioReport(r, db, i === 0));

  if (runs.single.length > 0) {
    out.push('');
    out.push(`service time (${label((runs.results[0] as ScenarioResult).scenario).replace(/, \d+ connections/, '')}, 1 connection: no request waits behind another):`);
    out.push(table([
      ['route', 'req/s', 'p50 ms', 'p99 ms', 'errors', `p99 < ${TARGET_SERVICE_P99_MS} ms`],
      ...runs.single.map((r, i) => [r.route, fmt(r.rps, 0), fmt(r.latency.p50, 2), fmt(r.latency.p99, 2), String(r.non2xx + r.socketErrors),
        i === 0 ? '' : r.latency.p99 < TARGET_SERVICE_P99_MS ? 'MET' : 'NOT MET']),
    ]));
  }
  if (profiles.length > 0) {
    out.push('');
    out.push('CPU profiles of the server\'s main thread (first scenario; with several workers, the first worker; self time, µs per');
    out.push('2xx request, by area; profiling slows the server, so read the columns against each other, not against the CPU table):');
    const names = new Set<string>();
    for (const p of profiles) for (const a of p.summary.areas.slice(0, 14)) names.add(a.name);
    const perRequest = (p: Profiled, name: string): number | null => {
      const a = p.summary.areas.find((x) => x.name === name);
      return p.handled > 0 ? ((a?.ms ?? 0) * 1000) / p.handled : null;
    };
    // Areas in the order of authorize's cost (the route the engine's targets are about).
    const lead = profiles.find((p) => p.route.includes('/engine/authorize')) ?? (profiles[0] as Profiled);
    const ordered = [...names].sort((x, y) => (perRequest(lead, y) ?? 0) - (perRequest(lead, x) ?? 0));
    out.push(table([
      ['area', ...profiles.map((p) => p.route.replace(/^(GET|POST) /, '').replace(' (diagnostic)', ''))],
      ...ordered.map((name) => [name, ...profiles.map((p) => fmt(perRequest(p, name), 0))]),
      ['(all busy time)', ...profiles.map((p) => fmt(p.handled > 0 ? (p.summary.busyMs * 1000) / p.handled : null, 0))],
    ]));
    for (const p of profiles.filter((x) => x.route.includes('/engine/'))) {
      out.push('');
      out.push(`top functions of ${p.route} by self time (${p.file}):`);
      out.push(table([['self %', 'µs/req', 'function'], ...p.summary.functions.map((f) => [fmt(f.share * 100, 1), fmt(p.handled > 0 ? (f.ms * 1000) / p.handled : null, 0), f.name])]));
    }
  }
  out.push('');
  mkdirSync(path.dirname(opt.out), { recursive: true });
  const json = {
    generated_at: new Date().toISOString(),
    machine: { ...machine, load_average_before: loadBefore },
    database: { description: db.description, version: db.version },
    load: { pipelining: 1, seconds: opt.seconds, warmup_seconds: opt.warmup, autocannon: versionOf('autocannon') },
    targets: {
      routes: { 'POST /engine/authorize': { against: VERIFY_FLOOR_NAME, min_relative: TARGET_AUTHORIZE_RELATIVE }, 'POST /engine/bind-execution': { against: FLOOR_NAME, min_relative: TARGET_BIND_RELATIVE } },
      max_p99_relative: TARGET_P99_RATIO, max_rss_mb: TARGET_RSS_MB, max_scale_change_pct: TARGET_SCALE_PCT, max_service_p99_ms: TARGET_SERVICE_P99_MS },
    scenarios: runs.results.map(scenarioJson),
    scale: runs.scale ? scenarioJson(runs.scale) : null,
    single_connection: runs.single.map((r) => ({ route: r.route, rps: r.rps, latency_ms: r.latency, responses: r.responses, errors: r.non2xx + r.socketErrors, status_counts: r.statusCounts })),
    profiles: profiles.map((p) => ({ route: p.route, file: p.file, server_2xx: p.handled, ...p.summary })),
  };
  writeFileSync(opt.out, `${JSON.stringify(json, null, 2)}\n`);
  out.push(`written: ${path.relative(process.cwd(), opt.out)}`);
  console.log(out.join('\n'));
}

main().catch((error: unknown) => {
  if (error instanceof BenchFailure) {
    console.error(`\nBENCHMARK INVALID: ${error.message}`);
  } else {
    console.error(error);
  }
  process.exitCode = 1;
});
