/**
 * Benchmark of the live FIX drop copy: how fast `tradeseal serve` reconciles fills streamed by an exchange,
 * how long a fill waits between its receipt and its ORPHAN trace, and what the stream costs authorize, each
 * next to a floor measured in the same run, on the same database (see bench/README.md).
 *
 *   npx tsx bench/dropcopy.ts [--fills 10000] [--seconds 10] [--warmup 2] [--connections 50] [--agents 200]
 *     [--stream-rate 250] [--out FILE]
 *
 * 1. The database: a scratch database on the server of DATABASE_URL, else a throwaway PostgreSQL cluster, durable
 *    (fsync, synchronous_commit and full_page_writes on: the engine's headline figures are durable; the floor
 *    pays the same).
 * 2. The server: `tradeseal serve` (bin/dev.js) in a child process, one process, the drop-copy session as
 *    acceptor on a free port. The exchange: the QuickFIX/C++ peer of the tests (test/helpers/quickfix/, built
 *    here if needed), as initiator, file store in a temporary directory.
 * 3. Burst: the exchange sends --fills ExecutionReports (35=8, 150=F) of unknown orders at once; each becomes
 *    an ORPHAN trace. Reconciled fills/s is --fills over the time from the first receipt to the last commit;
 *    the delay of each fill is applied_at - received_at of its dropcopy_executions row. The session reads no
 *    more than two batches ahead of its commits (runner.ts, HIGH_WATER), so the rest of a burst waits in the
 *    socket buffers: that wait is reported as well, from the exchange's SendingTime (52) of each fill (read from
 *    the exchange's message log) to its commit. Its floor: the same
 *    number of rows inserted in transactions of 500 with one fenced update each (what the session's pipeline
 *    does at the least: insert the batch, move the watermark), on the same database.
 * 4. Authorize (bench/support/load.ts, pipelining 1, --connections connections over --agents agents) for
 *    --seconds without the stream, then for --seconds with a steady stream of --stream-rate fills/s (a `bulk`
 *    of rate/10 every 100 ms), three times, alternated, each run starting on a quiet server (the transparency log's
 *    queue empty, every fill committed): the mean throughput with the stream against the mean without. The
 *    stream's delays are those of the last round. Authorize runs flat out here (every
 *    core busy), where any other work costs it in proportion to its CPU: the comparison says what a stream of a
 *    stated rate costs, not that a drop copy is free. The default rate, 250 fills/s sustained (900,000 fills an
 *    hour), is a heavy hour of one firm's drop-copy session; run it with --stream-rate 1000 to see the cost of a
 *    stream four times that. The delays of the steady stream's fills are reported too.
 * 5. The steady stream alone (no authorize) for --seconds, after as long idle: the CPU of the engine server and of
 *    PostgreSQL per fill (bench/support/proc.ts), net of what they use idle. The authorize comparison's loss is
 *    made of it (at saturation a stream of r fills/s takes about r x that of the cores' time each second), without
 *    the comparison's noise.
 * 6. Prints the figures against the targets (information, never a failure) and writes them to
 *    bench/results/dropcopy-latest.json.
 *
 * Fails (exit 1) only when it is not measuring what it says: a fill not reconciled, or more than 1 % of the
 * authorize requests without a 2xx.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { connect, type Sql } from '../src/store/driver.js';
import { migrate } from '../src/store/migrate.js';
import { createSigner } from '../src/crypto/ed25519.js';
import { formatSignature, heartbeatMessage } from '../src/engine/heartbeat/message.js';
import { dropCopyEnv, ENGINE_COMP_ID, EXCHANGE_COMP_ID, freePort } from '../test/helpers/dropcopy-server.js';
import { buildExchangePeer } from '../test/helpers/quickfix/build.js';
import { startExchangePeer, type ExchangePeer } from '../test/helpers/quickfix/peer.js';
import { engineSettings, MODEL_HASH, publishRegime, registerAgent, type Agent, type EngineSettings, type Regime } from '../test/reliability/support/engine.js';
import { Client } from '../test/reliability/support/http.js';
import { startServerProcess, type ServerProcess } from '../test/reliability/support/server.js';
import { removeTempDirs } from '../test/reliability/support/temp.js';
import { openBenchDatabase, type BenchDatabase } from './support/pg.js';
import { runLoad, type ConnectionPlan, type LoadResult, type LoadSpec } from './support/load.js';
import { cpuSnapshot } from './support/proc.js';
import { resultPath, writeResult } from './support/result-file.js';

const TARGET_FILLS_PER_S = 2000;
const TARGET_DELAY_P99_MS = 1000;
const TARGET_AUTHORIZE_PCT = 10;
const MAX_ERROR_SHARE = 0.01;
const FLOOR_BATCH = 500;

const log = (line: string): void => {
  process.stderr.write(`[bench] ${line}\n`);
};

function options() {
  const { values } = parseArgs({
    options: {
      fills: { type: 'string', default: '10000' },
      seconds: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '50' },
      agents: { type: 'string', default: '200' },
      'stream-rate': { type: 'string', default: '250' },
      out: { type: 'string' },
    },
  });
  const int = (name: string, v: string | undefined): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name}: expected a positive integer, got ${v}`);
    return n;
  };
  return {
    fills: int('fills', values.fills), seconds: int('seconds', values.seconds), warmup: int('warmup', values.warmup),
    connections: int('connections', values.connections), agents: int('agents', values.agents),
    streamRate: int('stream-rate', values['stream-rate']), out: values.out,
  };
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/** Rounds of authorize without, then with, the stream. */
const AUTHORIZE_ROUNDS = 3;

/** The mean throughput of several runs; their latency quantiles averaged (p50) and the worst (p99). */
function meanLoad(runs: LoadResult[]): { rps: number; latency: { p50: number; p99: number } } {
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  return { rps: mean(runs.map((r) => r.rps)), latency: { p50: mean(runs.map((r) => r.latency.p50)), p99: Math.max(...runs.map((r) => r.latency.p99)) } };
}

/** Waits until the server is quiet: the transparency log's queue empty (every leaf sequenced). */
async function waitQuiet(sql: Sql, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await sql<Array<{ n: number }>>`select count(*)::int as n from log_queue`;
    if (row!.n === 0) return;
    if (Date.now() > deadline) throw new Error(`the transparency log still had ${row!.n} leaves to sequence after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until every fill with ExecID prefix `prefix` is in dropcopy_executions. */
async function waitForFills(sql: Sql, prefix: string, n: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await sql<Array<{ n: number }>>`select count(*)::int as n from dropcopy_executions where exec_id like ${`${prefix}%`}`;
    if (row!.n >= n) return;
    if (Date.now() > deadline) throw new Error(`only ${row!.n} of ${n} fills reconciled within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Each fill's ExecID (17) and SendingTime (52, UTC, in ms) as the exchange sent it: from its QuickFIX message log. */
function sendingTimes(peerDir: string, prefix: string): Map<string, number> {
  const out = new Map<string, number>();
  const logDir = path.join(peerDir, 'log');
  for (const file of readdirSync(logDir).filter((f) => f.endsWith('.messages.current.log'))) {
    for (const line of readFileSync(path.join(logDir, file), 'latin1').split('\n')) {
      const execId = /\x0117=([^\x01]*)/.exec(line)?.[1];
      if (execId === undefined || !execId.startsWith(prefix) || !line.includes('\x0135=8\x01') || line.includes('\x0143=Y\x01')) continue;
      const t = /\x0152=(\d{4})(\d{2})(\d{2})-(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\x01/.exec(line);
      if (!t) throw new Error(`the exchange's log has a fill ${execId} without a readable SendingTime (52)`);
      const [, y, mo, d, h, mi, sec, frac] = t;
      out.set(execId, Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec), Number((frac ?? '0').padEnd(3, '0').slice(0, 3))));
    }
  }
  return out;
}

interface Delays {
  /** applied_at - received_at: the wait inside the engine. */
  receipt: { p50: number; p99: number; max: number };
  /** applied_at - SendingTime (52): the wait from the exchange's send, socket buffers included. */
  sending: { p50: number; p99: number; max: number };
}

interface FillRows {
  n: number;
  first_received: number;
  last_applied: number;
  outcomes: Record<string, number>;
  delay_ms: Delays;
}

/** The fills with ExecID prefix `prefix`: their outcomes, and their delays from receipt and from sending. */
async function fillRows(sql: Sql, peerDir: string, prefix: string): Promise<FillRows> {
  const rows = await sql<Array<{ exec_id: string; received: number; applied: number; outcome: string }>>`
    select exec_id, extract(epoch from received_at)::float8 * 1000 as received, extract(epoch from applied_at)::float8 * 1000 as applied, outcome
    from dropcopy_executions where exec_id like ${`${prefix}%`}`;
  const sent = sendingTimes(peerDir, prefix);
  const missing = rows.filter((r) => !sent.has(r.exec_id)).length;
  if (missing > 0) throw new Error(`${missing} fills of ${prefix} are not in the exchange's message log`);
  const stats = (xs: number[]): { p50: number; p99: number; max: number } => {
    xs.sort((a, b) => a - b);
    return { p50: quantile(xs, 0.5), p99: quantile(xs, 0.99), max: xs[xs.length - 1] ?? 0 };
  };
  const outcomes: Record<string, number> = {};
  for (const r of rows) outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
  return {
    n: rows.length,
    first_received: Math.min(...rows.map((r) => r.received)),
    last_applied: Math.max(...rows.map((r) => r.applied)),
    outcomes,
    delay_ms: { receipt: stats(rows.map((r) => r.applied - r.received)), sending: stats(rows.map((r) => r.applied - sent.get(r.exec_id)!)) },
  };
}

interface BurstFigures {
  fills: number;
  seconds: number;
  fills_per_s: number;
  delay_ms: Delays;
  outcomes: Record<string, number>;
}

async function burst(sql: Sql, peer: ExchangePeer, peerDir: string, agent: Agent, n: number): Promise<BurstFigures> {
  const prefix = `BURST-${randomUUID().slice(0, 8)}-`;
  peer.command(`bulk ${n} ${prefix} ${agent.agentId} 1`);
  await waitForFills(sql, prefix, n, 600_000);
  const r = await fillRows(sql, peerDir, prefix);
  const seconds = (r.last_applied - r.first_received) / 1000;
  return { fills: r.n, seconds, fills_per_s: r.n / seconds, delay_ms: r.delay_ms, outcomes: r.outcomes };
}

/** The floor of the burst: its rows inserted in transactions of FLOOR_BATCH, each with one fenced update. */
async function burstFloor(sql: Sql, n: number): Promise<{ seconds: number; fills_per_s: number }> {
  await sql`create table if not exists bench_dropcopy_floor (like dropcopy_executions)`;
  await sql`create table if not exists bench_dropcopy_floor_session (k text primary key, next_seq int, epoch int)`;
  await sql`insert into bench_dropcopy_floor_session values ('k', 1, 1) on conflict do nothing`;
  const started = performance.now();
  for (let i = 0; i < n; i += FLOOR_BATCH) {
    const rows = Array.from({ length: Math.min(FLOOR_BATCH, n - i) }, (_, j) => ({
      exec_id: `FLOOR-${randomUUID()}`, session_key: 'k', seq: i + j + 1, poss_dup: false, received_at: new Date(), applied_at: new Date(), outcome: 'orphan', trace_id: randomUUID(),
    }));
    await sql.begin(async (tx) => {
      const moved = await tx`update bench_dropcopy_floor_session set next_seq = ${i + rows.length + 1} where k = 'k' and epoch = 1`;
      if (moved.count !== 1) throw new Error('floor: fenced update missed');
      await tx`insert into bench_dropcopy_floor ${tx(rows)} on conflict do nothing`;
    });
  }
  const seconds = (performance.now() - started) / 1000;
  await sql`drop table bench_dropcopy_floor, bench_dropcopy_floor_session`;
  return { seconds, fills_per_s: n / seconds };
}

function authorizeSpec(settings: EngineSettings, agents: Agent[], regime: Regime, connections: number): LoadSpec {
  const signer = createSigner(settings.operatorSecret);
  return {
    name: 'POST /engine/authorize', method: 'POST', path: '/engine/authorize',
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
              agent_id: agent.agentId, model_hash_hex: MODEL_HASH, model_id: 'alpha-7', prompt_version: 'p-3', feature_schema_id: 'fs-1',
              hyperparameter_checksum: 'h-9', action: 'Long', asset: 'AAPL', order_type: 'Limit', venue_id: 'XNAS', quantity: 100,
              limit_price: 190, notional: 19_000, client_order_id: randomUUID(), agent_valid_time: Date.now(),
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

/**
 * CPU of the engine server and of PostgreSQL per fill of a steady stream alone (no authorize), from /proc: from the
 * stream's start until its fills are committed and their leaves sequenced, net of what the same processes use idle
 * for as long (the server's timers, the sequencer's ticks). What the authorize comparison's loss is made of,
 * without its noise: at saturation, a stream of r fills/s takes about r x (server + PostgreSQL) ms of the cores'
 * time each second. Null where /proc cannot be read.
 */
async function streamCpu(sql: Sql, peer: ExchangePeer, agent: Agent, serverPid: number, postmasterPid: number | null, rate: number, seconds: number): Promise<{ fills: number; server_ms: number | null; postgres_ms: number | null }> {
  await waitQuiet(sql, 600_000);
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
  const stream = await withStream(peer, agent, rate, () => new Promise((resolve) => setTimeout(resolve, seconds * 1000)));
  await waitForFills(sql, stream.prefix, stream.sent, 600_000);
  await waitQuiet(sql, 600_000);
  const to = cpuSnapshot(serverPid, postmasterPid);
  const scale = (performance.now() - started) / 1000 / idleSeconds;
  const net = (a: number | null, b: number | null, ia: number | null, ib: number | null): number | null =>
    a === null || b === null || ia === null || ib === null ? null : (((b - a) - (ib - ia) * scale) * 1000) / stream.sent;
  return {
    fills: stream.sent,
    server_ms: net(idleTo.server, to.server, idleFrom.server, idleTo.server),
    postgres_ms: net(idleTo.postgres, to.postgres, idleFrom.postgres, idleTo.postgres),
  };
}

/** A steady stream of `rate` fills/s from the exchange while `during` runs; returns the fills sent. */
async function withStream<T>(peer: ExchangePeer, agent: Agent, rate: number, during: () => Promise<T>): Promise<{ result: T; sent: number; prefix: string }> {
  const prefix = `STREAM-${randomUUID().slice(0, 8)}-`;
  const perTick = Math.max(1, Math.round(rate / 10));
  let sent = 0;
  const timer = setInterval(() => {
    peer.command(`bulk ${perTick} ${prefix} ${agent.agentId} ${sent + 1}`);
    sent += perTick;
  }, 100);
  try {
    return { result: await during(), sent, prefix };
  } finally {
    clearInterval(timer);
  }
}

async function main(): Promise<void> {
  const opt = options();
  let db: BenchDatabase | undefined;
  let server: ServerProcess | undefined;
  let peer: ExchangePeer | undefined;
  let sql: Sql | undefined;
  const peerDir = mkdtempSync(path.join(os.tmpdir(), 'tradeseal-bench-exchange-'));
  try {
    log('building the QuickFIX exchange peer (cached after the first build)');
    const binary = await buildExchangePeer();
    db = await openBenchDatabase({ serverUrl: process.env.DATABASE_URL ?? null, durable: true, maxConnections: 100 });
    log(`database: ${db.description}, ${db.version}, durable`);
    sql = connect(db.url, { max: 4 });
    await migrate(sql);

    const settings = await engineSettings(db.url, { env: { LOG_LEVEL: 'warn' } });
    const enginePort = await freePort();
    server = await startServerProcess({ ...settings.env, ...dropCopyEnv('acceptor', enginePort) }, 'bench-dropcopy');
    peer = await startExchangePeer({ binary, role: 'initiator', port: enginePort, senderCompId: EXCHANGE_COMP_ID, targetCompId: ENGINE_COMP_ID, dir: peerDir, reconnectS: 1 });
    await peer.waitFor(/^logon$/, { timeoutMs: 60_000 });
    log('the exchange is logged on');

    const client = new Client(server.url, 8);
    const regime = await publishRegime(client, settings.ownerToken);
    const fillAgent = await registerAgent(client, settings.ownerToken);
    const agents: Agent[] = [];
    for (let i = 0; i < opt.agents; i++) agents.push(await registerAgent(client, settings.ownerToken));
    client.close();

    log(`floor: ${opt.fills} rows in transactions of ${FLOOR_BATCH}`);
    const floor = await burstFloor(sql, opt.fills);
    log(`burst: ${opt.fills} fills from the exchange`);
    const fills = await burst(sql, peer, peerDir, fillAgent, opt.fills);
    if (fills.fills !== opt.fills || (fills.outcomes.orphan ?? 0) !== opt.fills) throw new Error(`burst: expected ${opt.fills} ORPHAN fills, got ${JSON.stringify(fills.outcomes)}`);

    const spec = authorizeSpec(settings, agents, regime, opt.connections);
    // Both sides of the comparison start from a quiet server: the burst's 20,000 leaves sequenced into the
    // transparency log, every fill committed. Two rounds of without / with, alternated, so that a drift of the
    // machine's load during the run falls on both sides; each side's figure is the mean of its rounds.
    const store = sql;
    const quiet = () => waitQuiet(store, 600_000);
    log(`authorize: ${opt.warmup} s warm-up, then ${AUTHORIZE_ROUNDS} rounds of ${opt.seconds} s without the stream and ${opt.seconds} s with ${opt.streamRate} fills/s`);
    await quiet();
    await runLoad(spec, { url: server.url, connections: opt.connections, seconds: opt.warmup });
    const alones: LoadResult[] = [];
    const withs: LoadResult[] = [];
    let streamed: { sent: number; prefix: string } = { sent: 0, prefix: '' };
    for (let round = 1; round <= AUTHORIZE_ROUNDS; round++) {
      await quiet();
      const a = await runLoad(spec, { url: server.url, connections: opt.connections, seconds: opt.seconds });
      checkErrors(a, 'authorize without the stream');
      alones.push(a);
      await quiet();
      const b = await withStream(peer, fillAgent, opt.streamRate, () => runLoad(spec, { url: server!.url, connections: opt.connections, seconds: opt.seconds }));
      checkErrors(b.result, 'authorize with the stream');
      withs.push(b.result);
      await waitForFills(sql, b.prefix, b.sent, 600_000);
      streamed = b;
      log(`round ${round}: ${Math.round(a.rps)} req/s without, ${Math.round(b.result.rps)} with`);
    }
    log(`the steady stream alone: the CPU it costs, ${opt.seconds} s idle then ${opt.seconds} s of ${opt.streamRate} fills/s`);
    const cpu = await streamCpu(sql, peer, fillAgent, server.pid, db.postmasterPid, opt.streamRate, opt.seconds);
    const alone = meanLoad(alones);
    // The stream's delays: those of the last round's fills.
    const stream = await fillRows(sql, peerDir, streamed.prefix);
    const withRps = meanLoad(withs).rps;
    const streamedResult = meanLoad(withs);
    const lossPct = ((alone.rps - withRps) / alone.rps) * 100;
    const figures = {
      options: opt,
      database: { description: db.description, version: db.version },
      burst: { ...fills, floor },
      authorize: {
        connections: opt.connections,
        without_stream: { rps: alone.rps, p50_ms: alone.latency.p50, p99_ms: alone.latency.p99 },
        with_stream: { rps: withRps, p50_ms: streamedResult.latency.p50, p99_ms: streamedResult.latency.p99, stream_fills: stream.n, stream_fills_per_s: stream.n / opt.seconds, stream_delay_ms: stream.delay_ms },
        loss_pct: lossPct,
        rounds: alones.map((a, i) => ({ without_rps: a.rps, with_rps: withs[i]?.rps })),
      },
      stream_cpu_ms_per_fill: cpu,
      targets: {
        fills_per_s: { target: `>= ${TARGET_FILLS_PER_S}`, met: fills.fills_per_s >= TARGET_FILLS_PER_S },
        delay_p99_ms: { target: `< ${TARGET_DELAY_P99_MS}`, met: fills.delay_ms.receipt.p99 < TARGET_DELAY_P99_MS },
        stream_delay_p99_ms: { target: `< ${TARGET_DELAY_P99_MS}`, met: stream.delay_ms.receipt.p99 < TARGET_DELAY_P99_MS },
        authorize_loss_pct: { target: `<= ${TARGET_AUTHORIZE_PCT}`, met: lossPct <= TARGET_AUTHORIZE_PCT },
      },
    };
    const f = (n: number, d = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
    const met = (ok: boolean): string => (ok ? 'MET' : 'NOT MET');
    const rows = [
      ['figure', 'value', 'floor (same run)', 'target', 'result'],
      ['reconciled fills/s (burst)', f(fills.fills_per_s), `${f(floor.fills_per_s)} rows/s`, `>= ${f(TARGET_FILLS_PER_S)}`, met(figures.targets.fills_per_s.met)],
      ['receipt -> ORPHAN p50 / p99 ms (burst)', `${f(fills.delay_ms.receipt.p50)} / ${f(fills.delay_ms.receipt.p99)}`, '', `p99 < ${f(TARGET_DELAY_P99_MS)}`, met(figures.targets.delay_p99_ms.met)],
      ['SendingTime (52) -> ORPHAN p50 / p99 ms (burst)', `${f(fills.delay_ms.sending.p50)} / ${f(fills.delay_ms.sending.p99)}`, '', 'information', ''],
      ['receipt -> ORPHAN p50 / p99 ms (steady stream)', `${f(stream.delay_ms.receipt.p50)} / ${f(stream.delay_ms.receipt.p99)}`, '', `p99 < ${f(TARGET_DELAY_P99_MS)}`, met(figures.targets.stream_delay_p99_ms.met)],
      ['SendingTime (52) -> ORPHAN p50 / p99 ms (steady stream)', `${f(stream.delay_ms.sending.p50)} / ${f(stream.delay_ms.sending.p99)}`, '', 'information', ''],
      ['CPU ms per fill, stream alone: engine / PostgreSQL', cpu.server_ms === null || cpu.postgres_ms === null ? 'unreadable' : `${f(cpu.server_ms, 2)} / ${f(cpu.postgres_ms, 2)}`, '', 'information', ''],
      ['authorize req/s with the stream', `${f(withRps)} (${f(stream.n / opt.seconds)} fills/s)`, `${f(alone.rps)} without`, `within ${TARGET_AUTHORIZE_PCT} %`, `${met(figures.targets.authorize_loss_pct.met)} (${f(lossPct, 1)} %)`],
    ];
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    process.stdout.write(`${rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ')).join('\n')}\n`);
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
