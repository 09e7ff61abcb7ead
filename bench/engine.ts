/**
 * Benchmark of the compliance engine's authorize and bind under load, next to a floor measured in the same
 * run, on the same server processes, pool and load generator (see bench/README.md).
 *
 *   npx tsx bench/engine.ts [--seconds 10] [--rounds 4] [--warmup 2] [--connections 50,100] [--workers 1,2 (default: serve's)]
 *     [--modes durable,non-durable] [--agents 600] [--pool N] [--history N [--history-months 36] [--scale-rounds 8]]
 *     [--compare NAME=VALUE,...] [--no-single] [--profile] [--max-error-share 0.01] [--out FILE]
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
 *    heartbeat signed with the operator's key (signed ahead of each run), its sequence_id increasing per agent.
 * 4. For each workers × mode × connections: the floor (`POST /bench/floor`, one INSERT), floor-verify
 *    (`POST /bench/floor-verify`: authorize's body, one signature verified, one INSERT: what any authorize must
 *    do at the least), authorize and bind, each warmed up, then measured in --rounds rounds of --seconds /
 *    --rounds s each, taken in turns (floor, floor-verify, authorize, bind, then the reverse, …:
 *    ./support/slices.ts), pipelining 1; each route's figure pools its slices, so a route and its floor are
 *    measured across the same minutes. Bind binds traces that authorize created, each once.
 * 5. In the first scenario also: noop and floor-5rt (five round trips), each in one run of --seconds; the service
 *    time over one connection; and profiles.
 * 6. With --history: two more databases of the same server, each with its own server process, agents and
 *    regime; N traces of history stored in one; then authorize and bind of the first scenario on the two stores,
 *    both servers up and the stores taken in turns in --scale-rounds rounds of the matrix's slices, in two blocks
 *    whose servers are started (and warmed up) in opposite orders (the scale run).
 * 7. With --compare NAME=VALUE,...: two more new databases, each with its own server of this build, the second
 *    started with the given settings on top of the harness's; the first scenario's floor, floor-verify, authorize
 *    and bind on both servers taken in turns in --scale-rounds rounds, in two blocks whose servers are started in
 *    opposite orders (the comparison run, ./support/compare.ts): what a setting changes, in the targets' ratios.
 * 8. Prints a summary against the targets (authorize ≥ 0.75 × floor-verify, bind ≥ 0.6 × the floor, both p99
 *    < 4 × the floor's, RSS < 300 MB a worker; information, never a failure), each scenario's table, where the
 *    CPU and the SQL went, and writes the same to bench/results/engine-latest.json.
 *
 * Fails (exit 1) only when the benchmark is not measuring what it says: more than --max-error-share of a
 * run's requests got no 2xx (the first error bodies are printed), or the setup failed. A flag it cannot use
 * stops it before anything starts: one line naming the flag and the rule, exit 2.
 */
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { heartbeatMessage, type HeartbeatFields } from '../src/core/records/heartbeat.js';
import { newTokenSecret } from '../src/engine/store/tokens.js';
import { serveWorkers } from '../src/http/cluster/count.js';
import { seedHistory } from './support/history.js';
import { startServer, type Server } from './support/server.js';
import { runLoad, type ConnectionPlan, type LoadResult, type LoadSpec } from './support/load.js';
import { openBenchDatabase, type BenchDatabase } from './support/pg.js';
import { cpuSnapshot } from './support/proc.js';
import { roundOrder, roundRatios, type Slice, type StatementCounter } from './support/slices.js';
import { COMPARE_KEYS, compareLines, parseCompare, settingsText, type CompareKey, type CompareRoute, type CompareSettings } from './support/compare.js';
import {
  FLOOR_NAME,
  label,
  measuredOf,
  ROUND_ROUTES,
  VERIFY_FLOOR_NAME,
  type ComparisonResult,
  type Measured,
  type Mode,
  type Profiled,
  type RoundRoute,
  type ScaleResult,
  type Scenario,
  type ScenarioResult,
} from './support/engine-results.js';
import { fmt, report } from './support/engine-report.js';
import { summarizeProfile, type CpuProfile } from './support/profile.js';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.dirname(BENCH_DIR);
const MODEL_HASH = 'a'.repeat(64);

// ---------------------------------------------------------------------------------------------- options

interface Options {
  seconds: number;
  /** Each scenario's routes are measured in this many rounds of seconds / rounds each, taken in turns. */
  rounds: number;
  /** The scale run's rounds (its two stores' slices as long as the matrix's). */
  scaleRounds: number;
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
  /** Settings of the comparison run's second server (null: no comparison run). */
  compare: CompareSettings | null;
  profile: boolean;
  /** Also measure the service time over one connection. */
  single: boolean;
  maxErrorShare: number;
  out: string;
}

function options(): Options {
  // Benchmark harness settings (BENCH_*), not tradeseal's: src/core/config.ts reads those.
  const env = process.env;
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string' },
      rounds: { type: 'string' },
      'scale-rounds': { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      pool: { type: 'string' },
      workers: { type: 'string' },
      agents: { type: 'string' },
      modes: { type: 'string' },
      history: { type: 'string' },
      'history-months': { type: 'string' },
      compare: { type: 'string' },
      profile: { type: 'boolean' },
      'no-single': { type: 'boolean' },
      'max-error-share': { type: 'string' },
      out: { type: 'string' },
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
  const compare = values.compare ?? env.BENCH_COMPARE;
  return {
    seconds: num(values.seconds, env.BENCH_SECONDS, 10, 1, 'seconds'),
    rounds: Math.round(num(values.rounds, env.BENCH_ROUNDS, 4, 1, 'rounds')),
    scaleRounds: Math.round(num(values['scale-rounds'], env.BENCH_SCALE_ROUNDS, 8, 1, 'scale-rounds')),
    // A warm-up's rate sizes the heartbeats signed ahead and bind's pending traces: at least a second of it.
    warmup: num(values.warmup, env.BENCH_WARMUP_SECONDS, 2, 1, 'warmup'),
    connections: list(values.connections, env.BENCH_CONNECTIONS, '50,100', 'connections'),
    workers: (values.workers ?? env.BENCH_WORKERS) ? list(values.workers, env.BENCH_WORKERS, '1', 'workers') : null,
    modes: modes as Mode[],
    pool: pool === undefined || pool === '' ? null : Math.round(num(pool, undefined, 50, 1, 'pool')),
    agents: Math.round(num(values.agents, env.BENCH_AGENTS, 600, 1, 'agents')),
    history: Math.round(num(values.history, env.BENCH_HISTORY, 0, 0, 'history')),
    historyMonths: Math.round(num(values['history-months'], env.BENCH_HISTORY_MONTHS, 36, 1, 'history-months')),
    compare: compare === undefined || compare === '' ? null : parseCompare(compare),
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
              agent_id: agent.agentId,
              model_hash_hex: MODEL_HASH,
              model_id: 'alpha-7',
              prompt_version: 'p-3',
              feature_schema_id: 'fs-1',
              hyperparameter_checksum: 'h-9',
              action: 'Long',
              asset: 'AAPL',
              order_type: 'Limit',
              venue_id: 'XNAS',
              quantity: 100,
              limit_price: 190,
              notional: 19_000,
              client_order_id: randomUUID(),
              agent_valid_time: now,
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

/** Whether bind's supply of pending traces ran out during a run, and how to stop that run. */
interface BindState {
  exhausted: boolean;
  stop: (() => void) | null;
}

/** Binds each pending trace once. Out of traces (should not happen: the pool is sized first), it stops the run. */
function bindSpec(traces: PendingTrace[], state: BindState): LoadSpec {
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
              trace_id: t.traceId,
              exchange_tx_id: `XBENCH-${++txCounter}`,
              execution_status: 'Filled',
              asset: 'AAPL',
              executed_quantity: 100,
              executed_side: 'Long',
              execution_price: 190,
              execution_time_ms: Date.now(),
            }),
          };
        },
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------- SQL statistics

/**
 * Every statement's counters so far (pg_stat_statements is cumulative: a slice's are the difference of two
 * readings, so the slices of several routes can be taken in turns without resetting it), or null when the
 * server does not count statements.
 */
async function statementCounters(admin: postgres.Sql | null, database: string): Promise<Map<string, StatementCounter> | null> {
  if (!admin) return null;
  const rows = await admin<Array<{ id: string; query: string; calls: number; total_exec_time: number }>>`
    select queryid::text || '/' || userid::text || '/' || toplevel::text as id, query, calls::float8 as calls, total_exec_time
    from pg_stat_statements
    where dbid = (select oid from pg_database where datname = ${database})
      and query not ilike '%pg_stat_statements%' and query not ilike 'checkpoint%'`;
  return new Map(rows.map((r) => [r.id, { query: r.query, calls: r.calls, totalMs: r.total_exec_time }]));
}

/** What ran between two readings of the counters. */
function statementsBetween(before: Map<string, StatementCounter> | null, after: Map<string, StatementCounter> | null): Map<string, StatementCounter> | null {
  if (!before || !after) return null;
  const out = new Map<string, StatementCounter>();
  for (const [id, c] of after) {
    const b = before.get(id);
    const calls = c.calls - (b?.calls ?? 0);
    if (calls > 0) out.set(id, { query: c.query, calls, totalMs: c.totalMs - (b?.totalMs ?? 0) });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- runs

class BenchFailure extends Error {}
/** A flag or setting the harness cannot use: said in one line, without a stack (an ordinary mistake, not a fault). */
class UsageError extends Error {}

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

// ---------------------------------------------------------------------------------------------- main

/** A database the engine serves from, and what the harness holds of it: its agents, regime and pending traces. */
interface Store {
  url: string;
  agents: Agent[];
  regime: Regime | null;
  ownerToken: string;
  traces: PendingTrace[];
  bindState: BindState;
}

const newStore = (url: string): Store => ({ url, agents: [], regime: null, ownerToken: '', traces: [], bindState: { exhausted: false, stop: null } });

/** Peak resident set of a process (VmHWM), MB; null where /proc cannot tell. */
function peakRssMb(pid: number): number | null {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmHWM:'));
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

/** A database's name, from its URL. */
const databaseOf = (url: string): string => decodeURIComponent(new URL(url).pathname.slice(1));

async function main(): Promise<void> {
  let opt: Options;
  try {
    opt = options();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
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
    // 1. The database. A throwaway cluster starts durable; each mode is switched on before its runs. The scale
    // run keeps two servers up at once (on the history's store and on an empty one), each with the headline's pool.
    const serverUrl = process.env.DATABASE_URL && process.env.DATABASE_URL !== '' ? process.env.DATABASE_URL : null;
    // The scale and comparison runs keep two servers up at once (their pools: the headline's, or the comparison's BENCH_POOL).
    const headPool = Math.max(...opt.connections.map((c) => opt.pool ?? c));
    const comparedPool = Number(opt.compare?.find(([name]) => name === 'BENCH_POOL')?.[1] ?? headPool);
    const maxConnections = headPool + Math.max(opt.history > 0 ? headPool : 0, opt.compare ? comparedPool : 0);
    log(serverUrl ? 'creating a scratch database on the server of DATABASE_URL…' : 'starting a throwaway PostgreSQL cluster…');
    const db: BenchDatabase = await openBenchDatabase({ serverUrl, durable: true, maxConnections: maxConnections + 40 });
    cleanups.push(() => db.drop());
    machine.postgres = db.version;
    const admin = postgres(db.url, { max: 1, onnotice: () => {} });
    cleanups.push(() => admin.end({ timeout: 5 }));
    // On a server of DATABASE_URL its settings are its own: one mode, as it is.
    const modes: Mode[] = serverUrl
      ? [(await admin<Array<{ f: string }>>`select current_setting('fsync') as f`)[0]?.f === 'on' ? 'durable' : 'non-durable']
      : opt.modes;
    const readSettings = async (): Promise<Record<string, string>> =>
      Object.fromEntries(
        (
          await admin<Array<{ name: string; setting: string; unit: string | null }>>`
      select name, setting, unit from pg_settings
      where name in ('fsync', 'synchronous_commit', 'full_page_writes', 'max_connections', 'shared_buffers')`
        ).map((r) => [r.name, r.unit && r.unit !== '' ? `${r.setting}×${r.unit}` : r.setting]),
      );
    const stats = db.statements ? admin : null;

    const operator = generateKeyPairSync('ed25519');
    const operatorPublicHex = (operator.publicKey.export({ format: 'der', type: 'spki' }) as Buffer).subarray(-32).toString('hex');
    // The default policy as shipped, its message throttle included.
    const policyPath = path.join(REPO, 'data/policy/default.json');
    const throttle = (JSON.parse(readFileSync(policyPath, 'utf8')) as { max_orders_per_second?: number | null }).max_orders_per_second ?? null;
    const agentCount = Math.max(opt.agents, ...opt.connections);

    const ownerSecret = newTokenSecret();
    const matrixStore = newStore(db.url);
    const results: ScenarioResult[] = [];
    const single: LoadResult[] = [];
    const profiles: Profiled[] = [];

    /**
     * Runs `body` with an engine server on `store`, at `workers` processes and a pool of `pool` connections, with
     * `settings` on top (the comparison run's second server).
     */
    const withServer = async <T>(
      store: Store,
      workers: number,
      pool: number,
      body: (server: Server) => Promise<T>,
      settings: CompareSettings = [],
    ): Promise<T> => {
      const given = settings.length > 0 ? `, with ${settingsText(settings)}` : '';
      log(`starting the engine server on ${databaseOf(store.url)} (${workers} worker${workers === 1 ? '' : 's'}, pool of ${pool} connections${given})…`);
      const server = await startServer({
        DATABASE_URL: store.url,
        LAYER2_ENABLED: 'true',
        REGIME_OPERATOR_PUBKEY: operatorPublicHex,
        POLICY_PATH: policyPath,
        LOG_LEVEL: 'silent',
        BENCH_POOL: String(pool),
        BENCH_WORKERS: String(workers),
        BENCH_OWNER_TOKEN: ownerSecret,
        ...Object.fromEntries(settings),
      });
      // Traces left pending by an earlier server process are not in this one's cache of what it sealed
      // (src/engine/sealed-cache.ts): binding them would read each first, which a process binding what it just
      // sealed does not. They stay pending in the store; bind's supply starts again from this process's.
      store.traces.length = 0;
      try {
        if (!store.regime) {
          // 2. Once per store: a regime, and one agent with its own client token per connection of the largest run.
          store.ownerToken = server.ownerToken;
          const published = await expectOk(
            call(server.url, store.ownerToken, 'POST', '/engine/admin/regime', { regime: 'expansion', risk_score: 0.2, reason: 'benchmark' }),
            'publish regime',
          );
          store.regime = { regimeId: published.regime_id as number, hash: published.hash as string };
        }
        if (store.agents.length < agentCount) log(`registering ${agentCount} agents, each with its own client token…`);
        for (let i = store.agents.length; i < agentCount; i++) {
          const a = await expectOk(
            call(server.url, store.ownerToken, 'POST', '/engine/admin/agents', {
              name: `bench-agent-${i}`,
              max_notional: 1_000_000,
              models: [{ model_id: 'alpha-7', model_hash_hex: MODEL_HASH }],
            }),
            'register agent',
          );
          const t = await expectOk(
            call(server.url, store.ownerToken, 'POST', '/engine/admin/tokens', { client_name: `bench-agent-${i}`, agent_ids: [a.agent_id] }),
            'issue token',
          );
          store.agents.push({ index: i, agentId: a.agent_id as string, token: t.token as string, sequence: 0, presigned: [] });
        }
        const analyzer = postgres(store.url, { max: 1, onnotice: () => {} });
        await analyzer`analyze`.finally(() => analyzer.end({ timeout: 5 }));
        return await body(server);
      } finally {
        await server.stop();
      }
    };

    /** One measured slice of `spec` on `server` (warmed up before): the load, and what it cost the server, PostgreSQL and the machine. */
    const slice = async (
      server: Server,
      store: Store,
      spec: LoadSpec,
      connections: number,
      seconds: number,
      { note = () => null, onInstance }: { note?: () => string | null; onInstance?: (stop: () => void) => void } = {},
    ): Promise<Slice> => {
      await server.drain();
      const database = databaseOf(store.url);
      const key = `${spec.method} ${spec.path} 2xx`;
      const statementsBefore = await statementCounters(stats, database);
      const countsBefore = await server.counts();
      const cpuBefore = cpuSnapshot(server.child.pid as number, db.postmasterPid);
      const result = await runLoad(spec, { url: server.url, connections, seconds, ...(onInstance ? { onInstance } : {}) });
      const countsAfter = await server.drain();
      // The sequencer's work for the slice's traces is the slice's: its CPU is counted here rather than in
      // whatever is measured next (its seconds are not: the sequencer ran alongside the requests all along).
      await sequenced(store);
      const cpuAfter = cpuSnapshot(server.child.pid as number, db.postmasterPid);
      const statementsAfter = await statementCounters(stats, database);
      checkErrors(result, spec.name, opt.maxErrorShare);
      return {
        result,
        cpuBefore,
        cpuAfter,
        note: note(),
        // Per-request figures divide by what the server answered with a 2xx, the slice's last requests included.
        handled: (countsAfter.finished[key] ?? 0) - (countsBefore.finished[key] ?? 0),
        loop: { activeMs: countsAfter.loop.activeMs - countsBefore.loop.activeMs, idleMs: countsAfter.loop.idleMs - countsBefore.loop.idleMs },
        statements: statementsBetween(statementsBefore, statementsAfter),
      };
    };

    /**
     * An unmeasured run of `spec` for --warmup s; its req/s. `ranOut`: whether a bind warm-up ran out of pending
     * traces (it then stopped early, its last requests re-binding a bound trace: 409s that warm nothing up and
     * are not the engine's errors).
     */
    const warmUp = async (
      server: Server,
      spec: LoadSpec,
      connections: number,
      onInstance?: (stop: () => void) => void,
      ranOut = (): boolean => false,
    ): Promise<number> => {
      log(`${spec.name}: warm-up ${opt.warmup} s`);
      const r = await runLoad(spec, { url: server.url, connections, seconds: opt.warmup, ...(onInstance ? { onInstance } : {}) });
      if (ranOut()) log(`${spec.name}: the warm-up ran out of pending traces after ${r.ok} binds and stopped there`);
      else checkErrors(r, `${spec.name} warm-up`, opt.maxErrorShare);
      return r.rps;
    };

    /** One connection per store for the harness's own reads (closed at the end). */
    const probes = new Map<string, postgres.Sql>();
    cleanups.push(async () => {
      for (const sql of probes.values()) await sql.end({ timeout: 5 });
    });
    /**
     * Waits (at most 10 s) until the transparency log's queue of `store` is empty: the sequencer, which runs in
     * the server, has taken the leaves of every trace written so far.
     */
    const sequenced = async (store: Store): Promise<void> => {
      let sql = probes.get(store.url);
      if (!sql) probes.set(store.url, (sql = postgres(store.url, { max: 1, onnotice: () => {} })));
      const deadline = Date.now() + 10_000;
      for (;;) {
        const [row] = await sql<Array<{ queued: boolean }>>`select exists (select 1 from log_queue) as queued`;
        if (!row?.queued) return;
        if (Date.now() > deadline) {
          log("warning: the transparency log's queue was not empty after 10 s; going on");
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };

    /**
     * Measures `keys` in `rounds` rounds, each giving each key one slice of --seconds / --rounds s, in an order
     * reversed every other round (./support/slices.ts); the slices of each key in round order.
     */
    const inRounds = async <K extends string>(
      keys: readonly K[],
      rounds: number,
      measure: (key: K, seconds: number) => Promise<Slice>,
    ): Promise<Record<K, Slice[]>> => {
      const out = Object.fromEntries(keys.map((k) => [k, [] as Slice[]])) as Record<K, Slice[]>;
      const seconds = opt.seconds / opt.rounds;
      // No checkpoint is forced before the rounds: just after one, every page a route first touches is written
      // to the WAL whole, which costs the engine's wide rows and scattered updates far more than the floors'
      // one narrow table, so a forced checkpoint would tax the first round's routes unevenly. PostgreSQL's own
      // checkpoints (every 5 minutes by default) fall where they fall, as in service.
      for (let round = 0; round < rounds; round++) {
        const order = roundOrder(keys, round);
        log(`round ${round + 1} of ${rounds}, ${fmt(seconds, 2)} s each: ${order.join(', ')}`);
        for (const key of order) out[key].push(await measure(key, seconds));
      }
      return out;
    };

    /**
     * The routes of a scenario on one store's server: their load specs, their warm-up (which sizes the heartbeats
     * signed ahead and the pending traces bind needs), a slice of each, and creating pending traces.
     */
    const routesOn = (server: Server, store: Store, connections: number) => {
      const regime = store.regime as Regime;
      const specs: Record<RoundRoute, LoadSpec> = {
        floor: floorSpec(),
        verifyFloor: verifyFloorSpec(store.agents, regime, operator.privateKey, connections),
        authorize: authorizeSpec(store.agents, regime, operator.privateKey, store.traces, connections),
        bind: bindSpec(store.traces, store.bindState),
      };
      const rates = { floor: 0, authorize: 0, bind: 0 };
      const onBindInstance = (stop: () => void): void => {
        store.bindState.stop = stop;
      };
      /**
       * Heartbeats for `seconds` at up to 1.3 × the floor's rate, signed before the run so that the signing is not
       * charged to the engine (more are signed on demand, and counted); at most 20 s worth, so that none is older
       * than the replay window when used. Returns the count of heartbeats signed so far.
       */
      const signAhead = (seconds: number): number => {
        presign(store.agents, Math.ceil((rates.floor * 1.3 * Math.min(seconds, 20)) / store.agents.length), regime, operator.privateKey);
        return store.agents.reduce((n, a) => n + a.sequence, 0);
      };
      const dropUnused = (): void => {
        for (const a of store.agents) a.presigned = [];
      };
      /**
       * Creates `count` pending traces through authorize (unmeasured) on top of bind's stack, then waits until the
       * transparency log's sequencer has taken their leaves, so that the next measured run does not carry that
       * work. Bind takes the newest first, as an exchange confirms the orders it just received: traces this
       * process sealed a moment ago, in its cache of the last 20,000 (src/engine/sealed-cache.ts), as in service.
       * Returns the count created.
       */
      const supply = async (count: number): Promise<number> => {
        const amount = Math.max(Math.ceil(count), connections);
        log(`creating ${amount} pending traces through authorize for bind…`);
        checkErrors(await runLoad(specs.authorize, { url: server.url, connections, amount }), 'authorize (creating traces for bind)', opt.maxErrorShare);
        await server.drain();
        await sequenced(store);
        return amount;
      };
      const margin = 4 * connections;
      /** The traces one bind run of `seconds` needs at the rates seen: 1.5 × bind's warm-up rate, at least the floor's. */
      const bindSupply = (seconds: number): number => Math.ceil(Math.max(rates.bind * 1.5, rates.floor) * seconds) + margin;

      return {
        specs,
        supply,
        bindSupply,
        async warmUp(): Promise<void> {
          rates.floor = await warmUp(server, specs.floor, connections);
          signAhead(opt.warmup);
          await warmUp(server, specs.verifyFloor, connections);
          signAhead(opt.warmup);
          rates.authorize = await warmUp(server, specs.authorize, connections);
          dropUnused();
          // Bind has outrun the floor's warm-up (just after the history was stored the floor's can be slow).
          store.bindState.exhausted = false;
          await supply(Math.max(rates.floor, rates.authorize) * opt.warmup * 2 + margin);
          rates.bind = await warmUp(server, specs.bind, connections, onBindInstance, () => store.bindState.exhausted);
          store.bindState.exhausted = false;
        },
        async slice(key: RoundRoute, seconds: number): Promise<Slice> {
          if (key === 'verifyFloor' || key === 'authorize') {
            const signed = signAhead(seconds);
            const s = await slice(server, store, specs[key], connections, seconds, {
              note: () => {
                const during = store.agents.reduce((n, a) => n + a.sequence, 0) - signed;
                return during > 0 ? `${during} heartbeats were signed during the run (the ones signed ahead ran out)` : null;
              },
            });
            dropUnused();
            return s;
          }
          if (key === 'bind') {
            // Each bind slice's own traces, created just before it (see `supply`).
            const prepared = await supply(bindSupply(seconds));
            store.bindState.exhausted = false;
            return slice(server, store, specs.bind, connections, seconds, {
              note: () =>
                store.bindState.exhausted ? `ran out of pending traces (${prepared} prepared): the run stopped early and re-binds answered 409` : null,
              onInstance: onBindInstance,
            });
          }
          return slice(server, store, specs.floor, connections, seconds);
        },
        onBindInstance,
      };
    };

    const runScenario = async (server: Server, store: Store, scenario: Scenario, first: boolean): Promise<ScenarioResult> => {
      log(`— ${label(scenario)}`);
      const peakOwn = server.workerPids.map(resetPeakRss).every(Boolean);
      const routes = routesOn(server, store, scenario.connections);
      /** A diagnostic route: a warm-up, then one run of --seconds. */
      const once = async (spec: LoadSpec): Promise<Measured> => {
        await warmUp(server, spec, scenario.connections);
        log(`${spec.name}: measuring ${opt.seconds} s`);
        return measuredOf(spec.name, [await slice(server, store, spec, scenario.connections, opt.seconds)]);
      };
      const noop = first ? await once(noopSpec()) : null;
      const roundTrips = first ? await once(roundTripsSpec()) : null;
      await routes.warmUp();
      const slices = await inRounds(ROUND_ROUTES, opt.rounds, (key, seconds) => routes.slice(key, seconds));
      const measured = (key: RoundRoute): Measured => measuredOf(routes.specs[key].name, slices[key]);
      const authorize = measured('authorize');

      if (first && opt.single) {
        // Service time: the same routes over a single connection, so no request waits behind another. At
        // N connections a closed-loop generator keeps N requests in the system, and mean latency is
        // N / throughput (Little's law) whatever the engine does; this is the latency of one request on an
        // otherwise idle engine.
        const one = { url: server.url, connections: 1, seconds: opt.seconds };
        log(`service time: ${opt.seconds} s per route over 1 connection`);
        const floorOne = await runLoad(routes.specs.floor, one);
        checkErrors(floorOne, `${routes.specs.floor.name} (1 connection)`, opt.maxErrorShare);
        // One connection takes turns among every agent, so that none exceeds the throttle alone.
        const authOne = await runLoad(authorizeSpec(store.agents, store.regime as Regime, operator.privateKey, store.traces, 1), one);
        checkErrors(authOne, `${routes.specs.authorize.name} (1 connection)`, opt.maxErrorShare);
        await routes.supply(floorOne.rps * opt.seconds * 1.3 + 4 * scenario.connections);
        store.bindState.exhausted = false;
        const bindOne = await runLoad(routes.specs.bind, { ...one, onInstance: routes.onBindInstance });
        checkErrors(bindOne, `${routes.specs.bind.name} (1 connection)`, opt.maxErrorShare);
        single.push(floorOne, authOne, bindOne);
      }

      // Read before the profiled runs: the profiler's own buffers are not the server's.
      const rssPeakMb = server.workerPids.map((pid) => peakRssMb(pid) ?? Number.NaN);
      if (first && opt.profile) {
        // CPU profiles of the server during more runs (unmeasured: profiling slows the server), of the
        // 5-round-trip floor, floor-verify, authorize and bind, so that their costs per request can be set side
        // by side (authorize's target is relative to floor-verify).
        mkdirSync(path.dirname(opt.out), { recursive: true });
        const roundTripsSpecNow = roundTripsSpec();
        for (const [slug, spec] of [
          ['floor-5rt', roundTripsSpecNow],
          ['floor-verify', routes.specs.verifyFloor],
          ['authorize', routes.specs.authorize],
          ['bind', routes.specs.bind],
        ] as const) {
          if (spec === routes.specs.bind) {
            await routes.supply(routes.bindSupply(opt.seconds));
            store.bindState.exhausted = false;
          }
          const file = path.join(path.dirname(opt.out), `${slug}.cpuprofile`);
          log(`${spec.name}: profiling the server for ${opt.seconds} s`);
          await server.drain();
          const key = `${spec.method} ${spec.path} 2xx`;
          const before = await server.counts();
          await server.request({ type: 'profile-start' }, 'profile-started');
          const r = await runLoad(spec, {
            url: server.url,
            connections: scenario.connections,
            seconds: opt.seconds,
            ...(spec === routes.specs.bind ? { onInstance: routes.onBindInstance } : {}),
          });
          const after = await server.drain();
          await server.request({ type: 'profile-stop', file }, 'profile-written');
          checkErrors(r, `${spec.name} (profiled)`, opt.maxErrorShare);
          // With several workers the profile is the first worker's: its share of the requests.
          const handled = ((after.finished[key] ?? 0) - (before.finished[key] ?? 0)) / server.workerPids.length;
          profiles.push({ route: spec.name, file, handled, summary: summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, 20) });
        }
      }
      return {
        scenario,
        settings: await readSettings(),
        noop,
        roundTrips,
        floor: measured('floor'),
        verifyFloor: measured('verifyFloor'),
        authorize,
        bind: measured('bind'),
        roundRatios: { authorize: roundRatios(slices.authorize, slices.verifyFloor), bind: roundRatios(slices.bind, slices.floor) },
        rssPeakMb,
        peakOwn,
      };
    };

    // 3. The matrix: for each server size, each commit mode, each connection count. By default the server size
    // is `tradeseal serve`'s default for this database (src/http/cluster/count.ts): what a new user gets.
    const workerCounts = opt.workers ?? [serveWorkers(undefined, { serveWorkers: null, databaseUrl: db.url })];
    for (const workers of workerCounts) {
      const pools = opt.connections.map((c) => opt.pool ?? c);
      await withServer(matrixStore, workers, Math.max(...pools), async (server) => {
        for (const mode of modes) {
          if (!serverUrl) await setMode(admin, mode);
          for (const connections of opt.connections) {
            results.push(await runScenario(server, matrixStore, { mode, workers, connections, pool: Math.max(...pools) }, results.length === 0));
          }
        }
      });
    }

    /** Two new databases of the same server (dropped at the end), as two stores. */
    const twoStores = async (): Promise<[Store, Store]> => {
      const made: Store[] = [];
      for (let i = 0; i < 2; i++) {
        const another = await db.another();
        cleanups.push(() => another.drop());
        made.push(newStore(another.url));
      }
      return made as [Store, Store];
    };
    /**
     * The two blocks of a run on two stores, --scale-rounds shared between them: the second starts the servers in
     * the opposite order, so that neither store always has the first process and the comparison spans two pairs
     * of processes (a process's speed varies with its JIT's choices). One block when there is one round.
     */
    const blocksOf = (a: Store, b: Store): Array<{ first: Store; second: Store; rounds: number }> =>
      opt.scaleRounds > 1
        ? [
            { first: a, second: b, rounds: Math.ceil(opt.scaleRounds / 2) },
            { first: b, second: a, rounds: Math.floor(opt.scaleRounds / 2) },
          ]
        : [{ first: a, second: b, rounds: 1 }];

    // 4. The scale run: authorize and bind of the headline scenario on two new stores (databases of the same
    // server), one given years of history and the other none, each with its own server, agents and regime; both
    // servers up and the two stores taken in turns within each round, so that the comparison is of the stores and
    // not of two moments of the machine, nor of the matrix's traces and dead rows.
    let scale: ScaleResult | null = null;
    if (opt.history > 0) {
      const head = (results[0] as ScenarioResult).scenario;
      const [historyStore, emptyStore] = await twoStores();
      const keys = ['empty authorize', 'stored authorize', 'stored bind', 'empty bind'] as const;
      type ScaleKey = (typeof keys)[number];
      const slices = Object.fromEntries(keys.map((k) => [k, [] as Slice[]])) as Record<ScaleKey, Slice[]>;
      const names = { authorize: '', bind: '' };
      let seeded = false;
      const blocks = blocksOf(historyStore, emptyStore);
      for (const [b, { first, second, rounds }] of blocks.entries()) {
        await withServer(first, head.workers, head.pool, (firstServer) =>
          withServer(second, head.workers, head.pool, async (secondServer) => {
            if (!seeded) {
              // The history, over the store's own agents, is written without durable commits (faster; it is not
              // what is measured), then the headline's mode is set again and its pages written out. Three
              // connections let the chunks go in parallel.
              if (!serverUrl) await setMode(admin, 'non-durable');
              log(`storing ${opt.history.toLocaleString('en-US')} traces over ${opt.historyMonths} months for the scale run…`);
              const started = Date.now();
              const seeder = postgres(historyStore.url, { max: 3, onnotice: () => {} });
              cleanups.push(() => seeder.end({ timeout: 5 }));
              await seedHistory(seeder, {
                traces: opt.history,
                months: opt.historyMonths,
                agents: historyStore.agents.map((a) => a.agentId),
                now: new Date(),
                onProgress: (p) => log(`  ${p.traces.toLocaleString('en-US')} of ${p.total.toLocaleString('en-US')} traces`),
              });
              log(`stored in ${((Date.now() - started) / 1000).toFixed(0)} s`);
              await seeder.end({ timeout: 5 });
              if (!serverUrl) await setMode(admin, head.mode);
              await admin`checkpoint`;
              seeded = true;
            }
            log(
              `— scale run, block ${b + 1} of ${blocks.length}: ${label(head)}, ${opt.history.toLocaleString('en-US')} traces stored against none, ${rounds} rounds`,
            );
            const [firstRoutes, secondRoutes] = [routesOn(firstServer, first, head.connections), routesOn(secondServer, second, head.connections)];
            await firstRoutes.warmUp();
            await secondRoutes.warmUp();
            const [stored, empty] = first === historyStore ? [firstRoutes, secondRoutes] : [secondRoutes, firstRoutes];
            names.authorize = stored.specs.authorize.name;
            names.bind = stored.specs.bind.name;
            const block = await inRounds(keys, rounds, (key, seconds) =>
              (key.startsWith('stored') ? stored : empty).slice(key.endsWith('authorize') ? 'authorize' : 'bind', seconds),
            );
            for (const k of keys) slices[k].push(...block[k]);
          }),
        );
      }
      const m = (key: ScaleKey): Measured => measuredOf(key.endsWith('authorize') ? names.authorize : names.bind, slices[key]);
      scale = {
        scenario: head,
        history: opt.history,
        stored: { authorize: m('stored authorize'), bind: m('stored bind') },
        empty: { authorize: m('empty authorize'), bind: m('empty bind') },
        roundRatios: {
          authorize: roundRatios(slices['stored authorize'], slices['empty authorize']),
          bind: roundRatios(slices['stored bind'], slices['empty bind']),
        },
      };
    }

    // 5. The comparison run: the first scenario's routes on two new stores, each with its own server of this build,
    // the second started with --compare's settings; both servers up, their routes taken in turns in each round (a
    // route on one server, then on the other), in two blocks whose servers are started in opposite orders.
    let comparison: ComparisonResult | null = null;
    if (opt.compare) {
      const head = (results[0] as ScenarioResult).scenario;
      const settings = opt.compare;
      const [plainStore, variedStore] = await twoStores();
      const slices = Object.fromEntries(COMPARE_KEYS.map((k) => [k, [] as Slice[]])) as Record<CompareKey, Slice[]>;
      const blocks = blocksOf(plainStore, variedStore);
      const start = (store: Store, body: (server: Server) => Promise<void>): Promise<void> =>
        withServer(store, head.workers, head.pool, body, store === variedStore ? settings : []);
      for (const [b, { first, second, rounds }] of blocks.entries()) {
        await start(first, (firstServer) =>
          start(second, async (secondServer) => {
            log(`— comparison run, block ${b + 1} of ${blocks.length}: ${label(head)}, plain against ${settingsText(settings)}, ${rounds} rounds`);
            const [firstRoutes, secondRoutes] = [routesOn(firstServer, first, head.connections), routesOn(secondServer, second, head.connections)];
            await firstRoutes.warmUp();
            await secondRoutes.warmUp();
            const [plain, varied] = first === plainStore ? [firstRoutes, secondRoutes] : [secondRoutes, firstRoutes];
            const block = await inRounds(COMPARE_KEYS, rounds, (key, seconds) =>
              (key.startsWith('plain') ? plain : varied).slice(key.split(' ')[1] as CompareRoute, seconds),
            );
            for (const k of COMPARE_KEYS) slices[k].push(...block[k]);
          }),
        );
      }
      comparison = {
        scenario: head,
        settings,
        lines: compareLines(slices),
        measured: Object.fromEntries(COMPARE_KEYS.map((k) => [k, measuredOf(k, slices[k])])) as Record<CompareKey, Measured>,
      };
    }

    report(opt, loadBefore, machine, db, { throttle, agents: matrixStore.agents.length, results, scale, comparison, single }, profiles);
  } finally {
    await cleanup();
  }
}

main().catch((error: unknown) => {
  if (error instanceof BenchFailure) {
    console.error(`\nBENCHMARK INVALID: ${error.message}`);
  } else if (error instanceof UsageError) {
    console.error(`bench/engine.ts: ${error.message} (--help lists the flags)`);
    process.exitCode = 2;
    return;
  } else {
    console.error(error);
  }
  process.exitCode = 1;
});
