/**
 * The IRL Engine's own load test against tradeseal's IRL-compatible edge: the incumbent's wrk script
 * (bench/irl/authorize.lua, copied unmodified) driving `POST /irl/authorize`, so that its published figure
 * (2,807 req/s, p99 42 ms at 100 connections, 4 vCPU, heartbeat layer off) can be set beside tradeseal's
 * measured the same way.
 *
 *   npm run bench:irl [-- --seconds 30 --threads 2 --connections 100 --pool 50 --workers 1 --out FILE]
 *
 * 1. The database: a scratch database on the server of DATABASE_URL, else a throwaway PostgreSQL cluster,
 *    durable (fsync, synchronous_commit and full_page_writes on), as bench/engine.ts makes it.
 * 2. The server: bench/engine-server.ts in a child process (the real `buildApp`), LAYER2_ENABLED=false (the
 *    incumbent's figure had its heartbeat layer off, and the script sends `heartbeat: null`), and the default
 *    policy with its message throttle off (`max_orders_per_second: null`): the script sends every order as
 *    one agent, and the incumbent's run had its rate limiting off (RATE_LIMIT_PER_SECOND=0); the rest of the
 *    policy is as shipped.
 * 3. Set up as a firm switching from the incumbent does: a regime published, one agent registered through
 *    `POST /irl/agents` (its model approved as `default`; the script's `model_id` "gpt-4o-bench" is approved
 *    by its hash alone, the /irl rule), a client token bound to it; one authorize in the script's form must
 *    answer 200 before the load starts.
 * 4. `wrk -t2 -c100 -d30s -s bench/irl/authorize.lua <url>/irl/authorize` with IRL_API_TOKEN, AGENT_ID and
 *    MODEL_HASH in its environment; wrk's output is printed as it is.
 * 5. The figures: wrk's req/s and the script's p50/p95/p99/p99.9, the answers by status (the script writes
 *    every non-2xx to stderr), and the traces actually sealed, counted in the store. The script seeds each wrk
 *    thread's generator with `os.time()`, so threads started in the same second send the same
 *    client_order_ids: tradeseal answers such a repeat with the original trace when the order is the same
 *    (no new trace), and 409 `client_order_id_conflict` when its `agent_valid_time` (whole seconds) differs.
 *    Both are reported, not hidden; req/s counts every answer, as wrk does.
 *    Written to bench/results/irl-wrk-latest.json.
 *
 * Fails (exit 1) when it is not measuring what it says: wrk is missing, the setup or the first authorize
 * fails, or more than 1% of the answers are neither 2xx nor the script's own 409 conflicts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { newTokenSecret } from '../src/engine/store/tokens.js';
import { openBenchDatabase } from './support/pg.js';
import { resultPath, writeResult } from './support/result-file.js';
import { startServer } from './support/server.js';
import { parseWrk, tallyWarnings, type WrkFigures } from './irl/wrk-output.js';
import { BenchFailure, call, expectOk, runWrk, wrkVersion } from './irl/wrk-run.js';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.dirname(BENCH_DIR);
const SCRIPT = path.join(BENCH_DIR, 'irl', 'authorize.lua');
/** The incumbent's published figure (IRL-engine-AX/docs/benchmarks/results.md, "100 Concurrent Agents"). */
const INCUMBENT = { rps: 2807, p99_ms: 42, connections: 100, machine: '4 vCPU, 8 GB, PostgreSQL 16 on the same host', layer2: false };
const MAX_ERROR_SHARE = 0.01;

const log = (line: string): void => {
  process.stderr.write(`[bench] ${line}\n`);
};

function options(): { seconds: number; threads: number; connections: number; pool: number; workers: number; out: string } {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string' },
      threads: { type: 'string' },
      connections: { type: 'string' },
      pool: { type: 'string' },
      workers: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0]);
    process.exit(0);
  }
  const whole = (raw: string | undefined, fallback: number, name: string): number => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new BenchFailure(`--${name} must be a whole number >= 1, got ${raw}`);
    return n;
  };
  return {
    seconds: whole(values.seconds, 30, 'seconds'),
    threads: whole(values.threads, 2, 'threads'),
    connections: whole(values.connections, 100, 'connections'),
    // The incumbent's run: DB_POOL_MAX_CONNECTIONS=50.
    pool: whole(values.pool, 50, 'pool'),
    workers: whole(values.workers, 1, 'workers'),
    out: resultPath('irl-wrk', values.out),
  };
}

async function main(): Promise<void> {
  const opt = options();
  const version = await wrkVersion();
  if (!version) throw new BenchFailure('wrk is not installed (Debian: apt-get install -y wrk)');
  const cleanups: Array<() => Promise<void>> = [];
  process.once('SIGINT', () => {
    void (async () => {
      for (const fn of cleanups.reverse()) await fn().catch(() => {});
      process.exit(130);
    })();
  });
  try {
    const serverUrl = process.env.DATABASE_URL && process.env.DATABASE_URL !== '' ? process.env.DATABASE_URL : null;
    log(serverUrl ? 'creating a scratch database on the server of DATABASE_URL…' : 'starting a throwaway PostgreSQL cluster (durable)…');
    const db = await openBenchDatabase({ serverUrl, durable: true, maxConnections: opt.pool + 40 });
    cleanups.push(() => db.drop());

    // The default policy, its message throttle off (see the module comment).
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeseal-irl-wrk-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const policyPath = path.join(dir, 'policy.json');
    const policy = JSON.parse(readFileSync(path.join(REPO, 'data/policy/default.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(policyPath, JSON.stringify({ ...policy, id: `${String(policy.id)}-no-throttle`, max_orders_per_second: null }, null, 2));

    log(`starting the engine server (${opt.workers} worker${opt.workers === 1 ? '' : 's'}, pool of ${opt.pool}, LAYER2_ENABLED=false)…`);
    const server = await startServer({
      DATABASE_URL: db.url,
      LAYER2_ENABLED: 'false',
      POLICY_PATH: policyPath,
      LOG_LEVEL: 'silent',
      BENCH_POOL: String(opt.pool),
      BENCH_WORKERS: String(opt.workers),
      BENCH_OWNER_TOKEN: newTokenSecret(),
    });
    cleanups.push(() => server.stop());
    const owner = server.ownerToken;

    await expectOk(call(server.url, owner, 'POST', '/engine/admin/regime', { regime: 'expansion', risk_score: 0.2, reason: 'benchmark' }), 'publish a regime');
    const modelHash = randomBytes(32).toString('hex');
    const registered = await call(server.url, owner, 'POST', '/irl/agents', { name: 'irl-wrk-bench', model_hash_hex: modelHash, max_notional: 1_000_000 });
    if (registered.status === 404) throw new BenchFailure('POST /irl/agents answered 404: this build does not serve the IRL-compatible edge yet');
    if (registered.status < 200 || registered.status > 299)
      throw new BenchFailure(`register an agent through /irl/agents: ${registered.status} ${JSON.stringify(registered.json)}`);
    const agentId = String(registered.json.agent_id ?? registered.json.id);
    const issued = await expectOk(
      call(server.url, owner, 'POST', '/engine/admin/tokens', { client_name: 'irl-wrk-bench', agent_ids: [agentId] }),
      'issue a client token',
    );
    const token = String(issued.token);

    // One authorize in the script's own form (bench/irl/authorize.lua), before any load.
    const first = await call(server.url, token, 'POST', '/irl/authorize', {
      agent_id: agentId,
      model_hash_hex: modelHash,
      model_id: 'gpt-4o-bench',
      prompt_version: 'v1.0.0',
      feature_schema_id: 'schema-bench-v1',
      hyperparameter_checksum: 'aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899',
      action: { Long: 0.37 },
      asset: 'BTC-USD',
      order_type: 'MARKET',
      venue_id: 'CBSE',
      quantity: 0.37,
      notional: 16650,
      limit_price: null,
      client_order_id: randomUUID(),
      agent_valid_time: Math.floor(Date.now() / 1000) * 1000 - 50,
      heartbeat: null,
      reduce_only: false,
    });
    if (first.status !== 200)
      throw new BenchFailure(`the first POST /irl/authorize in the script's form answered ${first.status} ${JSON.stringify(first.json)}`);

    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    cleanups.push(() => sql.end({ timeout: 5 }));
    const sealed = async (): Promise<number> =>
      Number((await sql<Array<{ n: string }>>`select count(*) as n from traces where agent_id = ${agentId}`)[0]?.n ?? 0);
    const sealedBefore = await sealed();

    const target = `${server.url}/irl/authorize`;
    const args = [`-t${opt.threads}`, `-c${opt.connections}`, `-d${opt.seconds}s`, '-s', path.relative(REPO, SCRIPT), target];
    log(`wrk ${args.join(' ')}`);
    const countsBefore = await server.counts();
    // Other work on the machine shares its cores with the run: the report says how busy it was.
    const loadBefore = os.loadavg();
    const run = await runWrk(args, { IRL_API_TOKEN: token, AGENT_ID: agentId, MODEL_HASH: modelHash });
    if (run.code !== 0) throw new BenchFailure(`wrk exited with ${run.code}: ${run.stderr.slice(0, 2000)}`);
    const countsAfter = await server.drain();
    const sealedDuring = (await sealed()) - sealedBefore;

    const figures: WrkFigures = parseWrk(run.stdout);
    const warnings = tallyWarnings(run.stderr);
    const served: Record<string, number> = {};
    for (const [k, n] of Object.entries(countsAfter.finished)) {
      const d = n - (countsBefore.finished[k] ?? 0);
      if (d > 0) served[k] = d;
    }
    const conflicts = warnings.byStatus['409'] ?? 0;
    const otherErrors = figures.non2xx - conflicts + figures.socketErrors;
    const twoXx = figures.requests - figures.non2xx;
    const cores = os.cpus().length;

    const out: string[] = [''];
    out.push("tradeseal against the IRL Engine's wrk script (bench/irl/authorize.lua, unmodified)");
    out.push(`machine: ${cores} cores (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}, ${db.version} (${db.description}, durable commits);`);
    out.push(`  wrk, the engine server and PostgreSQL share these ${cores} cores`);
    out.push(`engine: ${opt.workers} worker(s), a store pool of ${opt.pool}, LAYER2_ENABLED=false, the default policy without its message throttle, one agent`);
    out.push(`${version}: ${args.join(' ')}`);
    out.push(`load average before the run: ${loadBefore.map((l) => l.toFixed(2)).join(', ')} (1, 5, 15 min)`);
    out.push('');
    out.push(`requests/s (wrk, every answer):  ${figures.rps?.toFixed(0) ?? '-'}`);
    out.push(
      `latency p50 / p95 / p99 / p99.9: ${[figures.p50, figures.p95, figures.p99, figures.p999].map((v) => (v === null ? '-' : v.toFixed(2))).join(' / ')} ms`,
    );
    out.push(
      `answers: ${figures.requests} in ${figures.durationS?.toFixed(2) ?? '?'} s; 2xx ${twoXx}; by status of the rest ${JSON.stringify(warnings.byStatus)}; socket errors ${figures.socketErrors}`,
    );
    out.push(
      `traces sealed: ${sealedDuring} (${(sealedDuring / (figures.durationS ?? opt.seconds)).toFixed(0)}/s); the other 2xx answered a repeated client_order_id with its original trace`,
    );
    out.push(`the server's own count of what it answered: ${JSON.stringify(served)}`);
    out.push(
      `the incumbent's published figure: ${INCUMBENT.rps.toLocaleString('en-US')} req/s, p99 ${INCUMBENT.p99_ms} ms (${INCUMBENT.connections} connections, ${INCUMBENT.machine}, heartbeat layer off)`,
    );
    for (const [status, samples] of Object.entries(warnings.samples))
      out.push(`  first ${status} answers: ${samples.map((s) => s.slice(0, 300)).join('\n    ')}`);

    const file = writeResult(opt.out, {
      benchmark: 'irl-wrk',
      wrk: { version, command: `wrk ${args.join(' ')}`, script: 'bench/irl/authorize.lua (IRL-engine-AX bench/authorize.lua @ 0a45863, unmodified)' },
      load_average_before: loadBefore,
      database: { description: db.description, version: db.version, durable: true },
      engine: { workers: opt.workers, pool: opt.pool, layer2_enabled: false, policy: 'data/policy/default.json with max_orders_per_second: null', agents: 1 },
      figures: {
        rps: figures.rps,
        latency_ms: { p50: figures.p50, p95: figures.p95, p99: figures.p99, p999: figures.p999 },
        requests: figures.requests,
        duration_s: figures.durationS,
        responses_2xx: twoXx,
        non_2xx_by_status: warnings.byStatus,
        socket_errors: figures.socketErrors,
        traces_sealed: sealedDuring,
      },
      server_answers: served,
      incumbent: INCUMBENT,
      wrk_output: run.stdout,
    });
    out.push(`written: ${file}`);
    console.log(out.join('\n'));
    const attempts = figures.requests + figures.socketErrors;
    if (otherErrors / Math.max(1, attempts) > MAX_ERROR_SHARE) {
      throw new BenchFailure(
        `${otherErrors} of ${attempts} requests were neither 2xx nor the script's repeated client_order_id (409), above ${MAX_ERROR_SHARE * 100}%`,
      );
    }
  } finally {
    for (const fn of cleanups.reverse()) await fn().catch(() => {});
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof BenchFailure ? `\nBENCHMARK INVALID: ${error.message}` : error);
  process.exitCode = 1;
});
