/**
 * Benchmark of the live FIX drop copy, measured from the exchange's side: how fast `tradeseal serve` reconciles
 * fills streamed by an exchange, how long a fill takes from the exchange's send to its committed ORPHAN trace
 * (and from its receipt), and what a stream costs authorize, each next to a figure measured in the same run, on
 * the same database (see bench/README.md).
 *
 *   npx tsx bench/dropcopy.ts [--rounds 3] [--fills 10000] [--rate 1000] [--pace-seconds 10] [--seconds 10]
 *     [--warmup 2] [--connections 50] [--agents 200] [--stream-rate 250] [--phases burst,paced,authorize,cpu]
 *     [--profile DIR] [--out FILE]
 *
 * 1. The database: a scratch database on the server of DATABASE_URL, else a throwaway PostgreSQL cluster, durable
 *    (fsync, synchronous_commit and full_page_writes on: the engine's headline figures are durable; the floors
 *    pay the same).
 * 2. The server: `tradeseal serve` (bin/dev.js) in a child process, one process, the drop-copy session (on its
 *    own thread) as acceptor on a free port. The exchange: the QuickFIX/C++ peer of the tests
 *    (test/helpers/quickfix/, built here if needed), as initiator, file store in a temporary directory.
 * 3. Times. A fill's send is when the exchange handed it to its socket: the stamp (ns) QuickFIX's message log
 *    writes on each outgoing line, after the message's SendingTime (52), its serialization and its store write
 *    (peer.ts, `sent()`). Its receipt is received_at of its dropcopy_executions row (the session's clock when it
 *    read the message). Its commit is when a reader of the store saw it committed: the session's persisted
 *    watermark read every 5 ms (bench/support/commit-watch.ts; an upper bound by one read).
 * 4. Rounds, taken in turns (--rounds, default 3), each on a quiet server (the transparency log's queue empty,
 *    every fill committed), each of the phases:
 *    - burst: the exchange sends --fills ExecutionReports (35=8, 150=F) of unknown orders at once (`bulk`); each
 *      becomes an ORPHAN trace. Reconciled fills/s is --fills over the time from the first send to the last
 *      commit. The session reads no more than two batches ahead of its commits (runner.ts, HIGH_WATER), so the
 *      rest of a burst waits in the socket buffers: send -> commit includes that wait, receipt -> commit does
 *      not. Its floor: the same number of rows inserted in transactions of 500 with one fenced update each (what
 *      the session's pipeline does at the least: insert the batch, move the watermark), just before it.
 *    - paced: the exchange sends --rate fills/s for --pace-seconds, one every 1/rate s on its own steady clock
 *      (`pace`), a stream rather than a burst: send -> commit and receipt -> commit, p50 / p99. Its floor: one
 *      row inserted and committed alone on the same database (200 times), the least a fill can wait for its
 *      commit.
 *    - authorize (bench/support/load.ts, pipelining 1, --connections connections over --agents agents) for
 *      --seconds without the stream, then for --seconds with a paced stream of --stream-rate fills/s. Authorize
 *      runs flat out (every core busy), where any other work costs it in proportion to its CPU: the comparison
 *      says what a stream of a stated rate costs, not that a drop copy is free. 250 fills/s sustained (900,000
 *      an hour) is a heavy hour of one firm's drop-copy session.
 *    Each figure is the median of its rounds (the authorize loss: the median of each round's loss); the targets
 *    are judged on the medians.
 * 5. cpu: after the rounds, the paced stream of --stream-rate fills/s alone for --seconds, after as long idle:
 *    the CPU of the engine server and of PostgreSQL per fill (bench/support/proc.ts), net of what they use idle.
 * 6. Prints the figures of each round, the load average of the machine at the start and the end, and the medians
 *    against the targets, MET / NOT MET (information, never a failure); writes them to
 *    bench/results/dropcopy-latest.json. With --profile DIR the server runs under `node --cpu-prof` (one
 *    .cpuprofile per thread in DIR, the session's thread included, written when the server stops) and the
 *    statements' totals of pg_stat_statements (when the cluster has it) are written to DIR/statements.json.
 *
 * Fails (exit 1) only when it is not measuring what it says: a fill not reconciled or not an ORPHAN, a fill the
 * exchange's log does not show as sent, or more than 1 % of the authorize requests without a 2xx.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { connect, type Sql } from '../src/store/driver.js';
import { migrate } from '../src/store/migrate.js';
import { createSigner } from '../src/core/crypto/ed25519.js';
import { formatSignature, heartbeatMessage } from '../src/core/records/heartbeat.js';
import { dropCopyEnv, ENGINE_COMP_ID, EXCHANGE_COMP_ID, freePort, SESSION_KEY } from '../test/helpers/dropcopy-server.js';
import { buildExchangePeer } from '../test/helpers/quickfix/build.js';
import { startExchangePeer, type ExchangePeer, type SentMessage } from '../test/helpers/quickfix/peer.js';
import { engineSettings, MODEL_HASH, publishRegime, registerAgent, type Agent, type EngineSettings, type Regime } from '../test/reliability/support/engine.js';
import { Client } from '../test/reliability/support/http.js';
import { startServerProcess, type ServerProcess } from '../test/reliability/support/server.js';
import { removeTempDirs } from '../test/reliability/support/temp.js';
import { watchCommits } from './support/commit-watch.js';
import { openBenchDatabase, type BenchDatabase } from './support/pg.js';
import { runLoad, type ConnectionPlan, type LoadResult, type LoadSpec } from './support/load.js';
import { cpuSnapshot } from './support/proc.js';
import { resultPath, writeResult } from './support/result-file.js';

const TARGET_FILLS_PER_S = 2000;
const TARGET_DELAY_P99_MS = 1000;
const TARGET_AUTHORIZE_PCT = 10;
const MAX_ERROR_SHARE = 0.01;
const FLOOR_BATCH = 500;
const FLOOR_COMMITS = 200;
const PHASES = ['burst', 'paced', 'authorize', 'cpu'] as const;
type Phase = (typeof PHASES)[number];

const log = (line: string): void => {
  process.stderr.write(`[bench] ${line}\n`);
};

function options() {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '3' },
      fills: { type: 'string', default: '10000' },
      rate: { type: 'string', default: '1000' },
      'pace-seconds': { type: 'string', default: '10' },
      seconds: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '50' },
      agents: { type: 'string', default: '200' },
      'stream-rate': { type: 'string', default: '250' },
      phases: { type: 'string', default: PHASES.join(',') },
      profile: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const int = (name: string, v: string | undefined): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name}: expected a positive integer, got ${v}`);
    return n;
  };
  const phases = new Set((values.phases ?? '').split(',').filter(Boolean));
  for (const p of phases) if (!(PHASES as readonly string[]).includes(p)) throw new Error(`--phases: unknown phase ${p} (phases: ${PHASES.join(', ')})`);
  return {
    rounds: int('rounds', values.rounds),
    fills: int('fills', values.fills),
    rate: int('rate', values.rate),
    paceSeconds: int('pace-seconds', values['pace-seconds']),
    seconds: int('seconds', values.seconds),
    warmup: int('warmup', values.warmup),
    connections: int('connections', values.connections),
    agents: int('agents', values.agents),
    streamRate: int('stream-rate', values['stream-rate']),
    phases: phases as Set<Phase>,
    profile: values.profile,
    out: values.out,
  };
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? Number.NaN : s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
interface Quantiles {
  p50: number;
  p99: number;
  max: number;
}
const quantiles = (xs: number[]): Quantiles => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: quantile(s, 0.5), p99: quantile(s, 0.99), max: s[s.length - 1] ?? 0 };
};
const loadAverage = (): string =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** Waits until the server is quiet: the transparency log's queue empty (every leaf sequenced). */
async function waitQuiet(sql: Sql, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await sql<Array<{ n: number }>>`select count(*)::int as n from log_queue`;
    if (row!.n === 0) return;
    if (Date.now() > deadline) throw new Error(`the transparency log still had ${row!.n} leaves to sequence after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until every fill with ExecID prefix `prefix` is in dropcopy_executions. */
async function waitForFills(sql: Sql, prefix: string, n: number, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await sql<Array<{ n: number }>>`select count(*)::int as n from dropcopy_executions where exec_id like ${`${prefix}%`}`;
    if (row!.n >= n) return;
    if (Date.now() > deadline) throw new Error(`only ${row!.n} of ${n} fills reconciled within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Delays {
  /** The exchange's send (its message log's stamp) -> the commit a reader saw. */
  send: Quantiles;
  /** The session's receipt (received_at) -> the commit a reader saw. */
  receipt: Quantiles;
  /** SendingTime (52) -> the commit a reader saw, for comparison with `send` (52 is stamped a little earlier). */
  sending_time: Quantiles;
}

interface StreamFigures {
  fills: number;
  /** The exchange's first send to the last commit, s. */
  seconds: number;
  /** Fills over the exchange's first to last send: what was offered. */
  offered_per_s: number;
  /** Fills over the exchange's first send to the last commit. */
  fills_per_s: number;
  delay_ms: Delays;
  outcomes: Record<string, number>;
}

/**
 * Has the exchange send what `start` tells it to while the store's watermark is watched, waits for every fill of
 * `prefix`, and measures each from the exchange's send and from its receipt to its commit.
 */
async function measureFills(sql: Sql, url: string, peer: ExchangePeer, prefix: string, n: number, start: () => Promise<void>): Promise<StreamFigures> {
  const watch = watchCommits(url, SESSION_KEY);
  try {
    await start();
    await waitForFills(sql, prefix, n);
    // The last batch's commit is seen by the watch's next read.
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    await watch.stop();
  }
  const rows = await sql<Array<{ exec_id: string; seq: number; received: number; outcome: string }>>`
    select exec_id, seq, extract(epoch from received_at)::float8 * 1000 as received, outcome
    from dropcopy_executions where exec_id like ${`${prefix}%`}`;
  // Each fill's first send: a resend (43=Y, after a reconnection) counts when the fill had not gone out before
  // (QuickFIX stores but does not send, nor log, a message while the session is down).
  const sent = new Map<string, SentMessage>();
  let resent = 0;
  for (const m of peer.sent()) {
    if (m.msgType !== '8' || !m.execId?.startsWith(prefix)) continue;
    if (m.possDup) resent += 1;
    if (!sent.has(m.execId)) sent.set(m.execId, m);
  }
  if (resent > 0) log(`the exchange resent ${resent} fills of ${prefix} (a reconnection): each is timed from its first send`);
  const send: number[] = [];
  const receipt: number[] = [];
  const sendingTime: number[] = [];
  const outcomes: Record<string, number> = {};
  let firstSend = Infinity;
  let lastSend = -Infinity;
  let lastCommit = -Infinity;
  for (const r of rows) {
    outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
    const m = sent.get(r.exec_id);
    if (!m) throw new Error(`fill ${r.exec_id} is not in the exchange's message log`);
    if (m.seq !== r.seq) throw new Error(`fill ${r.exec_id}: sent as MsgSeqNum ${m.seq}, recorded as ${r.seq}`);
    const committed = watch.committedAt(r.seq);
    if (committed === null) throw new Error(`fill ${r.exec_id} (MsgSeqNum ${r.seq}) was never seen committed`);
    send.push(committed - m.at);
    receipt.push(committed - r.received);
    sendingTime.push(committed - m.sendingTime);
    firstSend = Math.min(firstSend, m.at);
    lastSend = Math.max(lastSend, m.at);
    lastCommit = Math.max(lastCommit, committed);
  }
  if (watch.maxGapMs > 100) log(`the commit watch was starved (${watch.maxGapMs} ms between two reads): delays are coarse by as much`);
  const seconds = (lastCommit - firstSend) / 1000;
  return {
    fills: rows.length,
    seconds,
    offered_per_s: rows.length / Math.max(1e-3, (lastSend - firstSend) / 1000),
    fills_per_s: rows.length / seconds,
    delay_ms: { send: quantiles(send), receipt: quantiles(receipt), sending_time: quantiles(sendingTime) },
    outcomes,
  };
}

function expectOrphans(what: string, f: StreamFigures, n: number): void {
  if (f.fills !== n || (f.outcomes.orphan ?? 0) !== n) throw new Error(`${what}: expected ${n} ORPHAN fills, got ${JSON.stringify(f.outcomes)}`);
}

/** The exchange sends `n` fills at once (`bulk`). */
async function burst(sql: Sql, url: string, peer: ExchangePeer, agent: Agent, n: number): Promise<StreamFigures> {
  const prefix = `BURST-${randomUUID().slice(0, 8)}-`;
  const f = await measureFills(sql, url, peer, prefix, n, async () => {
    const since = peer.lines.length;
    peer.command(`bulk ${n} ${prefix} ${agent.agentId} 1`);
    await peer.waitFor(/^bulk \d+ \d+ \d+$/, { since, timeoutMs: 600_000 });
  });
  expectOrphans('burst', f, n);
  return f;
}

/** Tells the exchange to send `n` fills at `rate` per second (`pace`); resolves once the last is sent. */
async function pace(peer: ExchangePeer, agent: Agent, n: number, rate: number, prefix: string): Promise<{ lateMaxMs: number }> {
  const since = peer.lines.length;
  peer.command(`pace ${n} ${rate} ${prefix} ${agent.agentId} 1`);
  const m = await peer.waitFor(/^paced \d+ \d+ \d+ (\d+)$/, { since, timeoutMs: (n / rate) * 1000 + 120_000 });
  return { lateMaxMs: Number(m[1]) / 1000 };
}

/** The exchange sends rate x seconds fills, paced. */
async function paced(sql: Sql, url: string, peer: ExchangePeer, agent: Agent, rate: number, seconds: number): Promise<StreamFigures & { late_max_ms: number }> {
  const prefix = `PACED-${randomUUID().slice(0, 8)}-`;
  const n = rate * seconds;
  let late = 0;
  const f = await measureFills(sql, url, peer, prefix, n, async () => {
    late = (await pace(peer, agent, n, rate, prefix)).lateMaxMs;
  });
  expectOrphans('paced stream', f, n);
  return { ...f, late_max_ms: late };
}

/** The floor of the burst: its rows inserted in transactions of FLOOR_BATCH, each with one fenced update. */
async function burstFloor(sql: Sql, n: number): Promise<{ seconds: number; fills_per_s: number }> {
  await floorTables(sql);
  const started = performance.now();
  for (let i = 0; i < n; i += FLOOR_BATCH) {
    const rows = Array.from({ length: Math.min(FLOOR_BATCH, n - i) }, (_, j) => floorRow(i + j + 1));
    await sql.begin(async (tx) => {
      const moved = await tx`update bench_dropcopy_floor_session set next_seq = ${i + rows.length + 1} where k = 'k' and epoch = 1`;
      if (moved.count !== 1) throw new Error('floor: fenced update missed');
      await tx`insert into bench_dropcopy_floor ${tx(rows)} on conflict do nothing`;
    });
  }
  const seconds = (performance.now() - started) / 1000;
  await sql`truncate bench_dropcopy_floor`;
  return { seconds, fills_per_s: n / seconds };
}

/** The floor of the paced stream's delay: one row and the fenced update committed alone, FLOOR_COMMITS times. */
async function commitFloor(sql: Sql): Promise<Quantiles> {
  await floorTables(sql);
  const times: number[] = [];
  for (let i = 0; i < FLOOR_COMMITS; i++) {
    const started = performance.now();
    await sql.begin(async (tx) => {
      await tx`update bench_dropcopy_floor_session set next_seq = ${i + 2} where k = 'k' and epoch = 1`;
      await tx`insert into bench_dropcopy_floor ${tx([floorRow(i + 1)])}`;
    });
    times.push(performance.now() - started);
  }
  await sql`truncate bench_dropcopy_floor`;
  return quantiles(times);
}

async function floorTables(sql: Sql): Promise<void> {
  // The columns of dropcopy_executions a fill's row needs at the least, its primary key included.
  await sql`create table if not exists bench_dropcopy_floor (exec_id text primary key, session_key text not null, seq int not null, poss_dup bool not null,
    received_at timestamptz not null, applied_at timestamptz not null, outcome text not null, trace_id uuid)`;
  await sql`create table if not exists bench_dropcopy_floor_session (k text primary key, next_seq int, epoch int)`;
  await sql`insert into bench_dropcopy_floor_session values ('k', 1, 1) on conflict do nothing`;
}

const floorRow = (seq: number) => ({
  exec_id: `FLOOR-${randomUUID()}`,
  session_key: 'k',
  seq,
  poss_dup: false,
  received_at: new Date(),
  applied_at: new Date(),
  outcome: 'orphan',
  trace_id: randomUUID(),
});

function authorizeSpec(settings: EngineSettings, agents: Agent[], regime: Regime, connections: number): LoadSpec {
  const signer = createSigner(settings.operatorSecret);
  return {
    name: 'POST /engine/authorize',
    method: 'POST',
    path: '/engine/authorize',
    connection(index): ConnectionPlan {
      // Connection i takes turns among agents i, i + connections, ...: an agent's heartbeats arrive in order.
      const mine = agents.filter((_, j) => j % connections === index % connections);
      let turn = 0;
      return {
        next() {
          const agent = mine[turn++ % mine.length]!;
          const fields = { sequence_id: ++agent.sequence, timestamp_ms: Date.now(), regime_id: regime.regimeId, mta_ref: regime.hash };
          return {
            headers: { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json' },
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
              agent_valid_time: Date.now(),
              heartbeat: { ...fields, signature: formatSignature('ed25519', signer(heartbeatMessage(fields, 'ed25519'))) },
            }),
          };
        },
      };
    },
  };
}

function checkErrors(r: LoadResult, what: string): void {
  const bad = r.non2xx + r.socketErrors;
  if (r.responses === 0 || bad / Math.max(1, r.responses) > MAX_ERROR_SHARE) {
    throw new Error(`${what}: ${bad} of ${r.responses} requests without a 2xx: ${r.errorSamples.join(' | ')}`);
  }
}

/** A paced stream of `rate` fills/s from the exchange while `during` runs (it stops at the end of `seconds`). */
async function withStream<T>(
  peer: ExchangePeer,
  agent: Agent,
  rate: number,
  seconds: number,
  during: () => Promise<T>,
): Promise<{ result: T; sent: number; prefix: string }> {
  const prefix = `STREAM-${randomUUID().slice(0, 8)}-`;
  const n = rate * seconds;
  const [result] = await Promise.all([during(), pace(peer, agent, n, rate, prefix)]);
  return { result, sent: n, prefix };
}

/**
 * CPU of the engine server and of PostgreSQL per fill of a paced stream alone (no authorize), from /proc: from the
 * stream's start until its fills are committed and their leaves sequenced, net of what the same processes use idle
 * for as long (the server's timers, the sequencer's ticks). What the authorize comparison's loss is made of,
 * without its noise: at saturation, a stream of r fills/s takes about r x (server + PostgreSQL) ms of the cores'
 * time each second. Null where /proc cannot be read.
 */
async function streamCpu(
  sql: Sql,
  peer: ExchangePeer,
  agent: Agent,
  serverPid: number,
  postmasterPid: number | null,
  rate: number,
  seconds: number,
): Promise<{ fills: number; server_ms: number | null; postgres_ms: number | null }> {
  await waitQuiet(sql);
  // What the rounds before left to do is done first: an autovacuum or a checkpoint falling inside the idle window
  // would be subtracted from the stream's cost (it once made PostgreSQL's share negative).
  await sql`vacuum analyze`;
  await sql`checkpoint`.catch((err: unknown) => log(`no checkpoint before the idle window (${(err as Error).message}): PostgreSQL's share may hold one`));
  const idleFrom = cpuSnapshot(serverPid, postmasterPid);
  const idleStarted = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const idleTo = cpuSnapshot(serverPid, postmasterPid);
  const idleSeconds = (performance.now() - idleStarted) / 1000;
  const started = performance.now();
  const stream = await withStream(peer, agent, rate, seconds, async () => {});
  await waitForFills(sql, stream.prefix, stream.sent);
  await waitQuiet(sql);
  const to = cpuSnapshot(serverPid, postmasterPid);
  const scale = (performance.now() - started) / 1000 / idleSeconds;
  const net = (a: number | null, b: number | null, ia: number | null, ib: number | null): number | null =>
    a === null || b === null || ia === null || ib === null ? null : ((b - a - (ib - ia) * scale) * 1000) / stream.sent;
  return {
    fills: stream.sent,
    server_ms: net(idleTo.server, to.server, idleFrom.server, idleTo.server),
    postgres_ms: net(idleTo.postgres, to.postgres, idleFrom.postgres, idleTo.postgres),
  };
}

interface Round {
  load_average: string;
  burst?: StreamFigures & { floor: { seconds: number; fills_per_s: number } };
  paced?: StreamFigures & { late_max_ms: number; floor_commit_ms: Quantiles };
  authorize?: { without_rps: number; with_rps: number; loss_pct: number; without_p99_ms: number; with_p99_ms: number; stream: StreamFigures | null };
}

const f = (n: number, d = 0): string => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : '-');
const pair = (q: Quantiles): string => `${f(q.p50)} / ${f(q.p99)}`;
const met = (ok: boolean): string => (ok ? 'MET' : 'NOT MET');

function printTable(rows: string[][]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  process.stdout.write(
    `${rows
      .map((r) =>
        r
          .map((c, i) => c.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      )
      .join('\n')}\n`,
  );
}

async function main(): Promise<void> {
  const opt = options();
  let db: BenchDatabase | undefined;
  let server: ServerProcess | undefined;
  let peer: ExchangePeer | undefined;
  let sql: Sql | undefined;
  const peerDir = mkdtempSync(path.join(os.tmpdir(), 'tradeseal-bench-exchange-'));
  const loadAtStart = loadAverage();
  try {
    log(`load average at the start: ${loadAtStart}`);
    log('building the QuickFIX exchange peer (cached after the first build)');
    const binary = await buildExchangePeer();
    db = await openBenchDatabase({ serverUrl: process.env.DATABASE_URL ?? null, durable: true, maxConnections: 100 });
    log(`database: ${db.description}, ${db.version}, durable`);
    sql = connect(db.url, { max: 4 });
    await migrate(sql);

    const settings = await engineSettings(db.url, { env: { LOG_LEVEL: 'warn' } });
    const enginePort = await freePort();
    const nodeArgs: string[] = [];
    if (opt.profile) {
      mkdirSync(opt.profile, { recursive: true });
      nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${path.resolve(opt.profile)}`);
      if (db.statements) await sql`select pg_stat_statements_reset()`;
    }
    server = await startServerProcess({ ...settings.env, ...dropCopyEnv('acceptor', enginePort) }, 'bench-dropcopy', nodeArgs);
    peer = await startExchangePeer({
      binary,
      role: 'initiator',
      port: enginePort,
      senderCompId: EXCHANGE_COMP_ID,
      targetCompId: ENGINE_COMP_ID,
      dir: peerDir,
      reconnectS: 1,
    });
    await peer.waitFor(/^logon$/, { timeoutMs: 60_000 });
    log('the exchange is logged on');

    const client = new Client(server.url, 8);
    const regime = await publishRegime(client, settings.ownerToken);
    const fillAgent = await registerAgent(client, settings.ownerToken);
    const agents: Agent[] = [];
    if (opt.phases.has('authorize')) for (let i = 0; i < opt.agents; i++) agents.push(await registerAgent(client, settings.ownerToken));
    client.close();

    const store = sql;
    const spec = authorizeSpec(settings, agents, regime, opt.connections);
    if (opt.phases.has('authorize')) {
      await waitQuiet(store);
      log(`authorize: ${opt.warmup} s warm-up`);
      await runLoad(spec, { url: server.url, connections: opt.connections, seconds: opt.warmup });
    }
    const rounds: Round[] = [];
    for (let r = 1; r <= opt.rounds; r++) {
      const round: Round = { load_average: loadAverage() };
      log(`round ${r} of ${opt.rounds} (load average ${round.load_average})`);
      if (opt.phases.has('burst')) {
        await waitQuiet(store);
        const floor = await burstFloor(store, opt.fills);
        await waitQuiet(store);
        round.burst = { ...(await burst(store, db.url, peer, fillAgent, opt.fills)), floor };
        log(
          `  burst: ${f(round.burst.fills_per_s)} fills/s (floor ${f(floor.fills_per_s)} rows/s), send -> commit p99 ${f(round.burst.delay_ms.send.p99)} ms, receipt -> commit p99 ${f(round.burst.delay_ms.receipt.p99)} ms`,
        );
      }
      if (opt.phases.has('paced')) {
        await waitQuiet(store);
        const floorCommit = await commitFloor(store);
        await waitQuiet(store);
        round.paced = { ...(await paced(store, db.url, peer, fillAgent, opt.rate, opt.paceSeconds)), floor_commit_ms: floorCommit };
        log(
          `  paced ${opt.rate} fills/s: send -> commit p50 / p99 ${pair(round.paced.delay_ms.send)} ms, receipt -> commit ${pair(round.paced.delay_ms.receipt)} ms (exchange late by at most ${f(round.paced.late_max_ms, 1)} ms)`,
        );
      }
      if (opt.phases.has('authorize')) {
        await waitQuiet(store);
        const a = await runLoad(spec, { url: server.url, connections: opt.connections, seconds: opt.seconds });
        checkErrors(a, 'authorize without the stream');
        await waitQuiet(store);
        const b = await withStream(peer, fillAgent, opt.streamRate, opt.seconds, () =>
          runLoad(spec, { url: server!.url, connections: opt.connections, seconds: opt.seconds }),
        );
        checkErrors(b.result, 'authorize with the stream');
        await waitForFills(store, b.prefix, b.sent);
        round.authorize = {
          without_rps: a.rps,
          with_rps: b.result.rps,
          loss_pct: ((a.rps - b.result.rps) / a.rps) * 100,
          without_p99_ms: a.latency.p99,
          with_p99_ms: b.result.latency.p99,
          stream: null,
        };
        log(`  authorize: ${f(a.rps)} req/s without, ${f(b.result.rps)} with ${opt.streamRate} fills/s (${f(round.authorize.loss_pct, 1)} %)`);
      }
      rounds.push(round);
    }
    const cpu = opt.phases.has('cpu') ? await streamCpu(store, peer, fillAgent, server.pid, db.postmasterPid, opt.streamRate, opt.seconds) : null;
    const loadAtEnd = loadAverage();

    const med = (pick: (r: Round) => number | undefined): number => median(rounds.map(pick).filter((x): x is number => x !== undefined));
    const burstPerS = med((r) => r.burst?.fills_per_s);
    const pacedSendP99 = med((r) => r.paced?.delay_ms.send.p99);
    const lossPct = med((r) => r.authorize?.loss_pct);
    const figures = {
      options: { ...opt, phases: [...opt.phases] },
      database: { description: db.description, version: db.version },
      load_average: { start: loadAtStart, end: loadAtEnd },
      rounds,
      median: {
        burst: opt.phases.has('burst')
          ? {
              fills_per_s: burstPerS,
              floor_rows_per_s: med((r) => r.burst?.floor.fills_per_s),
              send_p50_ms: med((r) => r.burst?.delay_ms.send.p50),
              send_p99_ms: med((r) => r.burst?.delay_ms.send.p99),
              receipt_p50_ms: med((r) => r.burst?.delay_ms.receipt.p50),
              receipt_p99_ms: med((r) => r.burst?.delay_ms.receipt.p99),
            }
          : null,
        paced: opt.phases.has('paced')
          ? {
              rate: opt.rate,
              offered_per_s: med((r) => r.paced?.offered_per_s),
              send_p50_ms: med((r) => r.paced?.delay_ms.send.p50),
              send_p99_ms: pacedSendP99,
              receipt_p50_ms: med((r) => r.paced?.delay_ms.receipt.p50),
              receipt_p99_ms: med((r) => r.paced?.delay_ms.receipt.p99),
              sending_time_p99_ms: med((r) => r.paced?.delay_ms.sending_time.p99),
              floor_commit_p50_ms: med((r) => r.paced?.floor_commit_ms.p50),
              floor_commit_p99_ms: med((r) => r.paced?.floor_commit_ms.p99),
            }
          : null,
        authorize: opt.phases.has('authorize')
          ? {
              stream_rate: opt.streamRate,
              without_rps: med((r) => r.authorize?.without_rps),
              with_rps: med((r) => r.authorize?.with_rps),
              loss_pct: lossPct,
            }
          : null,
      },
      stream_cpu_ms_per_fill: cpu,
      targets: {
        fills_per_s: { target: `>= ${TARGET_FILLS_PER_S}`, met: burstPerS >= TARGET_FILLS_PER_S },
        paced_send_p99_ms: { target: `< ${TARGET_DELAY_P99_MS}`, met: pacedSendP99 < TARGET_DELAY_P99_MS },
        authorize_loss_pct: { target: `<= ${TARGET_AUTHORIZE_PCT}`, met: lossPct <= TARGET_AUTHORIZE_PCT },
      },
    };

    const perRound: string[][] = [
      [
        'round',
        'load avg',
        'burst fills/s',
        'floor rows/s',
        'burst send -> commit p50 / p99 ms',
        `paced ${f(opt.rate)}/s send -> commit p50 / p99 ms`,
        'receipt -> commit p50 / p99 ms',
        'authorize req/s without / with',
      ],
    ];
    rounds.forEach((r, i) =>
      perRound.push([
        String(i + 1),
        r.load_average,
        r.burst ? f(r.burst.fills_per_s) : '-',
        r.burst ? f(r.burst.floor.fills_per_s) : '-',
        r.burst ? pair(r.burst.delay_ms.send) : '-',
        r.paced ? pair(r.paced.delay_ms.send) : '-',
        r.paced ? pair(r.paced.delay_ms.receipt) : '-',
        r.authorize ? `${f(r.authorize.without_rps)} / ${f(r.authorize.with_rps)}` : '-',
      ]),
    );
    printTable(perRound);
    process.stdout.write('\n');
    const m = figures.median;
    const rows: string[][] = [['figure (median of the rounds)', 'value', 'floor (same run)', 'target', 'result']];
    if (m.burst) {
      rows.push([
        'reconciled fills/s (burst, first send -> last commit)',
        f(m.burst.fills_per_s),
        `${f(m.burst.floor_rows_per_s)} rows/s`,
        `>= ${f(TARGET_FILLS_PER_S)}`,
        met(figures.targets.fills_per_s.met),
      ]);
      rows.push(['send -> committed ORPHAN p50 / p99 ms (burst)', `${f(m.burst.send_p50_ms)} / ${f(m.burst.send_p99_ms)}`, '', 'information', '']);
      rows.push(['receipt -> committed ORPHAN p50 / p99 ms (burst)', `${f(m.burst.receipt_p50_ms)} / ${f(m.burst.receipt_p99_ms)}`, '', 'information', '']);
    }
    if (m.paced) {
      rows.push([
        `send -> committed ORPHAN p50 / p99 ms (paced, ${f(m.paced.offered_per_s)} fills/s)`,
        `${f(m.paced.send_p50_ms)} / ${f(m.paced.send_p99_ms)}`,
        `${f(m.paced.floor_commit_p50_ms, 1)} / ${f(m.paced.floor_commit_p99_ms, 1)} (one-row commit)`,
        `p99 < ${f(TARGET_DELAY_P99_MS)}`,
        met(figures.targets.paced_send_p99_ms.met),
      ]);
      rows.push(['receipt -> committed ORPHAN p50 / p99 ms (paced)', `${f(m.paced.receipt_p50_ms)} / ${f(m.paced.receipt_p99_ms)}`, '', 'information', '']);
    }
    if (cpu)
      rows.push([
        `CPU ms per fill, ${f(opt.streamRate)} fills/s alone: engine / PostgreSQL`,
        cpu.server_ms === null || cpu.postgres_ms === null ? 'unreadable' : `${f(cpu.server_ms, 2)} / ${f(cpu.postgres_ms, 2)}`,
        '',
        'information',
        '',
      ]);
    if (m.authorize) {
      rows.push([
        `authorize req/s with ${f(opt.streamRate)} fills/s paced`,
        f(m.authorize.with_rps),
        `${f(m.authorize.without_rps)} without`,
        `within ${TARGET_AUTHORIZE_PCT} %`,
        `${met(figures.targets.authorize_loss_pct.met)} (${f(m.authorize.loss_pct, 1)} %)`,
      ]);
    }
    printTable(rows);
    process.stdout.write(`load average (1, 5, 15 min): ${loadAtStart} at the start, ${loadAtEnd} at the end\n`);
    if (opt.profile && db.statements) {
      const statements =
        await sql`select calls, round(total_exec_time::numeric, 1) as total_ms, round(mean_exec_time::numeric, 3) as mean_ms, rows, left(query, 300) as query
        from pg_stat_statements order by total_exec_time desc limit 40`;
      writeFileSync(path.join(opt.profile, 'statements.json'), `${JSON.stringify(statements, null, 2)}\n`);
    }
    log(`wrote ${writeResult(resultPath('dropcopy', opt.out), figures)}`);
  } finally {
    await peer?.stop().catch(() => {});
    await server?.stop().catch(() => {});
    await sql?.end({ timeout: 1 }).catch(() => {});
    await db?.drop().catch(() => {});
    await removeTempDirs();
    rmSync(peerDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench/dropcopy.ts: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
