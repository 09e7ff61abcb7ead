/**
 * Benchmark of the compliance engine's authorize and bind under load, next to a floor measured in the same
 * run, on the same server process, pool and load generator (see bench/README.md).
 *
 *   npx tsx bench/engine.ts [--seconds 10] [--warmup 2] [--connections 50] [--pool 50] [--durable] [--no-single] [--profile]
 *   npm run bench:engine -- --seconds 5
 *
 * 1. The database: a scratch database on the server of DATABASE_URL, else a throwaway PostgreSQL cluster.
 * 2. The server: bench/engine-server.ts in a child process (the real `buildApp`, LAYER2_ENABLED on, a regime
 *    operator key, a pool of --pool connections, a policy without the message throttle), plus the floor
 *    routes `GET /bench/noop` and `POST /bench/floor` (one INSERT) in the same process.
 * 3. One agent (with its own client token) per connection; every authorize carries a unique client_order_id
 *    and a fresh heartbeat signed with the operator's key, its sequence_id increasing per agent.
 * 4. Each route: a warm-up run, then a measured run of --seconds with --connections connections,
 *    pipelining 1. Bind binds traces that authorize created (more are created first when needed), each once.
 * 5. The floor, authorize and bind again over one connection: their service time without queueing.
 * 6. Prints a table (req/s, p50, p99, errors, relative to the bare-INSERT floor), the targets (information,
 *    never a failure), where the CPU and the SQL went, and writes the same to bench/results/engine-latest.json.
 *    With --profile, CPU profiles of the server during floor-5rt, authorize and bind, side by side.
 *
 * Fails (exit 1) only when the benchmark is not measuring what it says: more than --max-error-share of a
 * run's requests got no 2xx (the first error bodies are printed), or the setup failed.
 */
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { heartbeatMessage, type HeartbeatFields } from '../src/engine/heartbeat/message.js';
import { startServer, type Server } from './support/server.js';
import { runLoad, type ConnectionPlan, type LoadResult, type LoadSpec } from './support/load.js';
import { openBenchDatabase, type BenchDatabase } from './support/pg.js';
import { cpuSnapshot, cpuUse, type CpuUse } from './support/proc.js';
import { summarizeProfile, type CpuProfile, type ProfileSummary } from './support/profile.js';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.dirname(BENCH_DIR);
const MODEL_HASH = 'a'.repeat(64);
const TARGET_RELATIVE = 0.5;
const TARGET_P99_MS = 15;

// ---------------------------------------------------------------------------------------------- options

interface Options {
  seconds: number;
  warmup: number;
  connections: number;
  pool: number;
  durable: boolean;
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
      durable: { type: 'boolean' }, profile: { type: 'boolean' }, 'no-single': { type: 'boolean' }, 'max-error-share': { type: 'string' }, out: { type: 'string' },
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
  const connections = Math.round(num(values.connections, env.BENCH_CONNECTIONS, 50, 1, 'connections'));
  return {
    seconds: num(values.seconds, env.BENCH_SECONDS, 10, 1, 'seconds'),
    warmup: num(values.warmup, env.BENCH_WARMUP_SECONDS, 2, 0, 'warmup'),
    connections,
    pool: Math.round(num(values.pool, env.BENCH_POOL, connections, 1, 'pool')),
    durable: flag(values.durable, env.BENCH_DURABLE),
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
  return { name: 'POST /bench/floor (1 INSERT)', method: 'POST', path: '/bench/floor', connection: () => ({ next: () => ({ body }) }) };
}

function roundTripsSpec(): LoadSpec {
  const body = JSON.stringify({ payload: 'bench floor row' });
  return { name: 'POST /bench/floor-5rt (diagnostic)', method: 'POST', path: '/bench/floor-5rt', connection: () => ({ next: () => ({ body }) }) };
}

interface PendingTrace {
  traceId: string;
  agent: Agent;
}

function authorizeSpec(agents: Agent[], regime: Regime, operatorKey: KeyObject, traces: PendingTrace[]): LoadSpec {
  return {
    name: 'POST /engine/authorize',
    method: 'POST',
    path: '/engine/authorize',
    connection(index): ConnectionPlan {
      const agent = agents[index % agents.length] as Agent;
      const headers = { authorization: `Bearer ${agent.token}` };
      return {
        next() {
          const now = Date.now();
          const fields: HeartbeatFields = { sequence_id: ++agent.sequence, timestamp_ms: now, regime_id: regime.regimeId, mta_ref: regime.hash };
          const signature = `ed25519:${sign(null, heartbeatMessage(fields, 'ed25519'), operatorKey).toString('base64')}`;
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
          const traceId = /"trace_id":"([0-9a-f-]{36})"/.exec(body)?.[1];
          if (traceId) traces.push({ traceId, agent });
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
    // 1. The database.
    const serverUrl = process.env.DATABASE_URL && process.env.DATABASE_URL !== '' ? process.env.DATABASE_URL : null;
    log(serverUrl ? 'creating a scratch database on the server of DATABASE_URL…' : 'starting a throwaway PostgreSQL cluster…');
    const db: BenchDatabase = await openBenchDatabase({ serverUrl, durable: opt.durable, maxConnections: opt.pool + 30 });
    cleanups.push(() => db.drop());
    machine.postgres = db.version;

    // 2. The engine server, in a child process.
    const operator = generateKeyPairSync('ed25519');
    const operatorPublicHex = (operator.publicKey.export({ format: 'der', type: 'spki' }) as Buffer).subarray(-32).toString('hex');
    const policyDir = await mkdtemp(path.join(os.tmpdir(), 'tradeseal-bench-policy-'));
    cleanups.push(() => rm(policyDir, { recursive: true, force: true }));
    const policyPath = path.join(policyDir, 'policy.json');
    const basePolicy = JSON.parse(readFileSync(path.join(REPO, 'data/policy/default.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(policyPath, JSON.stringify({ ...basePolicy, id: 'bench', max_orders_per_second: null }));
    log(`starting the engine server (child process, pool of ${opt.pool} connections)…`);
    const server = await startServer({
      DATABASE_URL: db.url, LAYER2_ENABLED: 'true', REGIME_OPERATOR_PUBKEY: operatorPublicHex, POLICY_PATH: policyPath,
      LOG_LEVEL: 'silent', BENCH_POOL: String(opt.pool),
    });
    cleanups.push(() => server.stop());
    const serverPid = server.child.pid as number;

    // 3. A regime, and one agent with its own client token per connection.
    const published = await expectOk(call(server.url, server.ownerToken, 'POST', '/engine/admin/regime', { regime: 'expansion', risk_score: 0.2, reason: 'benchmark' }), 'publish regime');
    const regime: Regime = { regimeId: published.regime_id as number, hash: published.hash as string };
    const agents: Agent[] = [];
    for (let i = 0; i < opt.connections; i++) {
      const a = await expectOk(call(server.url, server.ownerToken, 'POST', '/engine/admin/agents', {
        name: `bench-agent-${i}`, max_notional: 1_000_000, models: [{ model_id: 'alpha-7', model_hash_hex: MODEL_HASH }],
      }), 'register agent');
      const t = await expectOk(call(server.url, server.ownerToken, 'POST', '/engine/admin/tokens', { client_name: `bench-agent-${i}`, agent_ids: [a.agent_id] }), 'issue token');
      agents.push({ index: i, agentId: a.agent_id as string, token: t.token as string, sequence: 0 });
    }

    const admin = postgres(db.url, { max: 1, onnotice: () => {} });
    cleanups.push(() => admin.end({ timeout: 5 }));
    await admin`analyze`;
    const pgSettings = Object.fromEntries((await admin<Array<{ name: string; setting: string; unit: string | null }>>`
      select name, setting, unit from pg_settings
      where name in ('fsync', 'synchronous_commit', 'full_page_writes', 'max_connections', 'shared_buffers')`)
      .map((r) => [r.name, r.unit && r.unit !== '' ? `${r.setting}×${r.unit}` : r.setting]));
    const stats = db.statements ? admin : null;

    const traces: PendingTrace[] = [];
    const bindState: { exhausted: boolean; stop: (() => void) | null } = { exhausted: false, stop: null };
    const specs = {
      noop: noopSpec(),
      floor: floorSpec(),
      roundTrips: roundTripsSpec(),
      authorize: authorizeSpec(agents, regime, operator.privateKey, traces),
      bind: bindSpec(traces, bindState),
    };
    const load = { url: server.url, connections: opt.connections };

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
      return { route: spec.name, result, handled, cpu: cpuUse(before, after, handled), statements, note: note() };
    };

    /** Creates pending traces through authorize (unmeasured) until `count` are waiting to be bound. */
    const preCreate = async (count: number): Promise<void> => {
      const missing = count - traces.length;
      if (missing <= 0) return;
      const amount = Math.max(missing, opt.connections);
      log(`pre-creating ${amount} pending traces through authorize for the bind run…`);
      checkErrors(await runLoad(specs.authorize, { ...load, amount }), 'authorize (pre-creating traces for bind)', opt.maxErrorShare);
    };

    // 4. The runs.
    const noop = await measure(specs.noop);
    const floor = await measure(specs.floor);
    const roundTrips = await measure(specs.roundTrips);
    const authorize = await measure(specs.authorize);

    // Bind needs one pending trace per request. Its rate is bounded by the floor's in practice (it does
    // strictly more database work than one INSERT); the warm-up's rate sizes the measured run's supply.
    const margin = 4 * opt.connections;
    await preCreate(Math.ceil(floor.result.rps * Math.max(opt.warmup, 1) * 1.3) + margin);
    let bindWarmRps = 0;
    if (opt.warmup > 0) {
      log(`${specs.bind.name}: warm-up ${opt.warmup} s`);
      const warm = await runLoad(specs.bind, { ...load, seconds: opt.warmup, onInstance: (stop) => { bindState.stop = stop; } });
      checkErrors(warm, `${specs.bind.name} warm-up`, opt.maxErrorShare);
      bindWarmRps = warm.rps;
      bindState.exhausted = false;
    }
    const expectedBindRps = Math.max(bindWarmRps, authorize.result.rps) * 1.5;
    await preCreate(Math.ceil(Math.min(expectedBindRps, floor.result.rps * 1.3) * opt.seconds) + margin);
    const tracesBeforeBind = traces.length;
    const bind = await measure(specs.bind, {
      warmup: false, // done above, before sizing the supply of traces
      note: () => (bindState.exhausted ? `ran out of pending traces (${tracesBeforeBind} prepared): the run stopped early and re-binds answered 409` : null),
      onInstance: (stop) => { bindState.stop = stop; },
    });

    // 5. Service time: the same routes over a single connection, so no request waits behind another. At
    // --connections connections a closed-loop generator keeps that many requests in the system, and mean
    // latency is connections / throughput (Little's law) whatever the engine does; this is the latency of
    // one request on an otherwise idle engine.
    const single: LoadResult[] = [];
    if (opt.single) {
      const one = { url: server.url, connections: 1, seconds: opt.seconds };
      log(`service time: ${opt.seconds} s per route over 1 connection`);
      const floorOne = await runLoad(specs.floor, one);
      checkErrors(floorOne, `${specs.floor.name} (1 connection)`, opt.maxErrorShare);
      const authOne = await runLoad(specs.authorize, one);
      checkErrors(authOne, `${specs.authorize.name} (1 connection)`, opt.maxErrorShare);
      // Bind over one connection cannot outrun the INSERT floor over one connection.
      await preCreate(Math.ceil(floorOne.rps * opt.seconds * 1.3) + margin);
      bindState.exhausted = false;
      const bindOne = await runLoad(specs.bind, { ...one, onInstance: (stop) => { bindState.stop = stop; } });
      checkErrors(bindOne, `${specs.bind.name} (1 connection)`, opt.maxErrorShare);
      single.push(floorOne, authOne, bindOne);
    }

    // 6. Optional: CPU profiles of the server during more runs (unmeasured: profiling slows the server), of
    // the 5-round-trip floor, authorize and bind, so that their costs per request can be set side by side.
    const profiles: Profiled[] = [];
    if (opt.profile) {
      mkdirSync(path.dirname(opt.out), { recursive: true });
      for (const [slug, spec] of [['floor-5rt', specs.roundTrips], ['authorize', specs.authorize], ['bind', specs.bind]] as const) {
        if (spec === specs.bind) {
          await preCreate(Math.ceil(Math.min(expectedBindRps, floor.result.rps * 1.3) * opt.seconds) + margin);
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
        const handled = (after.finished[key] ?? 0) - (before.finished[key] ?? 0);
        profiles.push({ route: spec.name, file, handled, summary: summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, 20) });
      }
    }

    report(opt, loadBefore, machine, db, pgSettings, { noop, floor, roundTrips, authorize, bind, single }, profiles);
  } finally {
    await cleanup();
  }
}

// ---------------------------------------------------------------------------------------------- output

interface Profiled {
  route: string;
  file: string;
  /** 2xx responses during the profiled run. */
  handled: number;
  summary: ProfileSummary;
}

interface Runs {
  noop: Measured;
  floor: Measured;
  roundTrips: Measured;
  authorize: Measured;
  bind: Measured;
  /** Floor, authorize and bind over one connection (empty with --no-single). */
  single: LoadResult[];
}

function report(opt: Options, loadBefore: number[], machine: Record<string, unknown>, db: BenchDatabase, pgSettings: Record<string, string>, runs: Runs, profiles: Profiled[]): void {
  const floorRps = runs.floor.result.rps;
  const all = [runs.noop, runs.floor, runs.roundTrips, runs.authorize, runs.bind];
  const relative = (m: Measured): number => m.result.rps / floorRps;
  const errors = (m: Measured): number => m.result.non2xx + m.result.socketErrors;

  const out: string[] = [];
  out.push('');
  out.push('tradeseal engine benchmark');
  out.push(`machine: ${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, Node ${machine.node}, ${db.version}, ${machine.os}`);
  out.push(`  the load generator (autocannon ${versionOf('autocannon')}, this process), the engine server (child process) and PostgreSQL share these ${machine.cores} cores`);
  out.push(`database: ${db.description}; ${Object.entries(pgSettings).map(([k, v]) => `${k}=${v}`).join(', ')}`);
  if (pgSettings.fsync === 'off') out.push('  durability off, as in the tests: a commit costs no WAL flush, for the engine and its floor alike (--durable keeps it on)');
  out.push(`load average before the run: ${loadBefore.map((l) => l.toFixed(2)).join(', ')} (1, 5, 15 min)`);
  out.push(`load: ${opt.connections} connections, pipelining 1, ${opt.seconds} s measured per route after ${opt.warmup} s of warm-up; store pool ${opt.pool} connections`);
  out.push('engine: LAYER2_ENABLED=true (a fresh signed heartbeat per authorize), one agent and client token per connection, policy without max_orders_per_second');
  out.push('');
  out.push(table([
    ['route', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs floor'],
    ...all.map((m) => [m.route, fmt(m.result.rps, 0), fmt(m.result.latency.p50, 2), fmt(m.result.latency.p99, 2), String(errors(m)), `${fmt(relative(m), 2)}x`]),
  ]));
  for (const m of all) if (m.note) out.push(`note: ${m.route}: ${m.note}`);
  out.push('');

  const targets = [runs.authorize, runs.bind].map((m) => {
    const throughputMet = relative(m) >= TARGET_RELATIVE;
    const p99Met = m.result.latency.p99 < TARGET_P99_MS;
    return { route: m.route, relative: relative(m), throughputMet, p99: m.result.latency.p99, p99Met };
  });
  out.push(`targets (information, not a pass/fail of this command): req/s >= ${TARGET_RELATIVE} x the floor's, p99 < ${TARGET_P99_MS} ms`);
  for (const t of targets) {
    out.push(`  ${t.route.padEnd(28)} throughput ${fmt(t.relative, 2)}x floor: ${t.throughputMet ? 'MET' : 'NOT MET'}; p99 ${fmt(t.p99, 2)} ms: ${t.p99Met ? 'MET' : 'NOT MET'}`);
  }
  out.push(`  note: with ${opt.connections} connections in a closed loop, mean latency = ${opt.connections} / req/s (Little's law): a mean of ${TARGET_P99_MS} ms`);
  out.push(`  alone needs ${fmt(opt.connections / (TARGET_P99_MS / 1000), 0)} req/s, so at saturation the p99 target is a throughput target in disguise.`);
  if (runs.single.length > 0) {
    out.push('');
    out.push('service time (1 connection: no request waits behind another):');
    out.push(table([
      ['route', 'req/s', 'p50 ms', 'p99 ms', 'errors', `p99 < ${TARGET_P99_MS} ms`],
      ...runs.single.map((r) => [r.route, fmt(r.rps, 0), fmt(r.latency.p50, 2), fmt(r.latency.p99, 2), String(r.non2xx + r.socketErrors),
        r.route === runs.floor.route ? '' : r.latency.p99 < TARGET_P99_MS ? 'MET' : 'NOT MET']),
    ]));
  }
  out.push('');

  out.push('where the time goes (CPU ms per 2xx request; machine busy = share of all cores in use during the run)');
  out.push(table([
    ['route', 'server', 'postgres', 'loadgen', 'other', 'total', 'busy', 'others', 'SQL/req', 'SQL exec ms/req'],
    ...all.map((m) => {
      const c = m.cpu;
      const total = [c.serverMsPerReq, c.postgresMsPerReq, c.loadgenMsPerReq, c.otherMsPerReq].reduce<number | null>((s, v) => (s === null || v === null ? s : s + v), 0);
      return [m.route, fmt(c.serverMsPerReq, 3), fmt(c.postgresMsPerReq, 3), fmt(c.loadgenMsPerReq, 3), fmt(c.otherMsPerReq, 3), fmt(total, 3),
        c.machineBusy === null ? '-' : `${fmt(c.machineBusy * 100, 0)}%`, c.othersBusy === null ? '-' : `${fmt(c.othersBusy * 100, 0)}%`,
        fmt(m.statements?.perRequest, 2), fmt(m.statements?.execMsPerRequest, 3)];
    }),
  ]));
  out.push('  server = the engine server process; postgres = the cluster\'s processes; loadgen = this process (autocannon, request');
  out.push('  building, heartbeat signing); other = the rest of the machine\'s busy time per request; others = its share of all cores.');
  const contaminated = all.filter((m) => (m.cpu.othersBusy ?? 0) > 0.1);
  if (contaminated.length > 0) {
    out.push(`  WARNING: other processes used more than 10% of the machine during ${contaminated.map((m) => m.route).join(', ')}:`);
    out.push('  those figures are low and noisy; run again on a quiet machine. The per-request CPU columns are the steadier guide.');
  }
  out.push('  SQL/req: statements per request as pg_stat_statements counts them (each a round trip; it misses the COMMIT');
  out.push('  of a transaction that postgres.js sends through the extended protocol: authorize and bind use no explicit transaction).');
  if (!db.statements) out.push('  (pg_stat_statements is not loaded on this server: no SQL figures)');
  for (const m of [runs.authorize, runs.bind]) {
    if (!m.statements) continue;
    out.push('');
    out.push(`statements of ${m.route} (pg_stat_statements, per 2xx request):`);
    out.push(table([
      ['per req', 'mean ms', 'statement'],
      ...m.statements.top.map((s) => [fmt(s.perRequest, 2), fmt(s.meanMs, 3), s.query.length > 110 ? `${s.query.slice(0, 110)}…` : s.query]),
    ]));
  }
  if (profiles.length > 0) {
    out.push('');
    out.push('CPU profiles of the server\'s main thread (self time, µs per 2xx request, by area; profiling slows the server, so');
    out.push('read the columns against each other, not against the CPU table above):');
    const names = new Set<string>();
    for (const p of profiles) for (const a of p.summary.areas.slice(0, 14)) names.add(a.name);
    const perRequest = (p: Profiled, name: string): number | null => {
      const a = p.summary.areas.find((x) => x.name === name);
      return p.handled > 0 ? ((a?.ms ?? 0) * 1000) / p.handled : null;
    };
    const ordered = [...names].sort((x, y) => (perRequest(profiles[1] ?? (profiles[0] as Profiled), y) ?? 0) - (perRequest(profiles[1] ?? (profiles[0] as Profiled), x) ?? 0));
    out.push(table([
      ['area', ...profiles.map((p) => p.route.replace(/^(GET|POST) /, '').replace(' (diagnostic)', ''))],
      ...ordered.map((name) => [name, ...profiles.map((p) => fmt(perRequest(p, name), 0))]),
      ['(all busy time)', ...profiles.map((p) => fmt(p.handled > 0 ? (p.summary.busyMs * 1000) / p.handled : null, 0))],
    ]));
    const auth = profiles.find((p) => p.route === runs.authorize.route);
    if (auth) {
      out.push('');
      out.push(`top functions of authorize by self time (${auth.file}):`);
      out.push(table([['self %', 'µs/req', 'function'], ...auth.summary.functions.map((f) => [fmt(f.share * 100, 1), fmt(auth.handled > 0 ? (f.ms * 1000) / auth.handled : null, 0), f.name])]));
    }
  }
  out.push('');
  mkdirSync(path.dirname(opt.out), { recursive: true });
  const json = {
    generated_at: new Date().toISOString(),
    machine: { ...machine, load_average_before: loadBefore },
    database: { description: db.description, version: db.version, settings: pgSettings },
    load: { connections: opt.connections, pipelining: 1, seconds: opt.seconds, warmup_seconds: opt.warmup, pool: opt.pool, autocannon: versionOf('autocannon') },
    floor_route: runs.floor.route,
    routes: all.map((m) => ({
      route: m.route,
      rps: m.result.rps,
      latency_ms: m.result.latency,
      responses: m.result.responses,
      ok: m.result.ok,
      server_2xx: m.handled,
      errors: errors(m),
      status_counts: m.result.statusCounts,
      seconds: m.result.seconds,
      relative_to_floor: relative(m),
      cpu_ms_per_request: m.cpu,
      statements: m.statements,
      note: m.note,
    })),
    targets: targets.map((t) => ({ route: t.route, relative_to_floor: t.relative, min_relative: TARGET_RELATIVE, throughput: t.throughputMet ? 'MET' : 'NOT MET', p99_ms: t.p99, max_p99_ms: TARGET_P99_MS, p99: t.p99Met ? 'MET' : 'NOT MET' })),
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
