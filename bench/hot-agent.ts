/**
 * One busy agent against many, in one run: the IRL Engine's own load test (its wrk script, bench/irl/authorize.lua,
 * unmodified: one agent, Layer 2 off) against `/irl/authorize`, beside `/engine/authorize` with one agent and with
 * 100 agents and the floor, all under wrk with the same threads and connections, taken in turns.
 *
 *   npm run bench:hot-agent [-- --rounds 5 --seconds 10 --threads 2 --connections 100 --agents 100 --pool 50 --profile --out FILE]
 *
 * 1. The database: a scratch database on the server of DATABASE_URL, else a throwaway PostgreSQL cluster, durable
 *    (fsync, synchronous_commit and full_page_writes on), as bench/engine.ts makes it.
 * 2. The server: bench/engine-server.ts in a child process (the real `buildApp`, one process, a store pool of
 *    --pool: the IRL Engine run's DB_POOL_MAX_CONNECTIONS=50), LAYER2_ENABLED=false, the default policy with its
 *    message throttle off (the IRL Engine's run had its rate limiting off; what a firm sets for a busy agent is in
 *    docs/benchmarks.md), a regime published.
 * 3. The agents: one registered through `POST /irl/agents` (its model approved as `default`; the script's model id
 *    `gpt-4o-bench` is approved by its hash alone), one more and --agents others through `/engine/admin/agents`,
 *    one client token for them all.
 * 4. The loads, each `wrk -t<threads> -c<connections> -d<seconds>s` with a script that prints the same summary:
 *    - floor: `POST /bench/floor` (the HTTP stack and one INSERT, committed; bench/irl/floor.lua);
 *    - `/engine/authorize`, --agents agents in turn (bench/irl/engine-authorize.lua: the IRL script's order in
 *      tradeseal's form, every client_order_id new);
 *    - `/engine/authorize`, one agent (the same script, one agent id);
 *    - `/irl/authorize`, the IRL Engine's script as it is.
 *    One unmeasured run of each first, then --rounds rounds, each running every load once, in an order that
 *    turns and reverses from round to round. Each figure is the median of its rounds, with their spread.
 *    Each answer's CPU is read from /proc: the server process, PostgreSQL's (a throwaway cluster only), wrk's.
 *    With --profile, after the rounds, a V8 CPU profile of the server under each authorize load (--seconds each):
 *    its areas and functions by self time go to stderr and to the JSON.
 * 5. The targets (information, never a failure): `/irl` one agent ≥ 0.9 × `/engine` 100 agents; `/engine` one
 *    agent ≥ 0.9 × 100 agents; every authorize's p99 under 4 × the floor's p99. Beside them the IRL Engine's
 *    published figure. Written to bench/results/hot-agent-latest.json.
 *
 * The IRL script seeds each wrk thread's generator with `os.time()`: threads started in the same second send the same
 * client_order_ids, answered as retries (200 with the original trace, or 409 `client_order_id_conflict` when the
 * `agent_valid_time` second differs); they are counted, as wrk counts every answer. Fails (exit 1) when it is not
 * measuring what it says: wrk is missing, the setup fails, or more than 1% of a load's answers are neither 2xx nor
 * the IRL script's own 409s.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { newTokenSecret } from '../src/engine/store/tokens.js';
import { openBenchDatabase } from './support/pg.js';
import { resultPath, writeResult } from './support/result-file.js';
import { startServer } from './support/server.js';
import { reapedChildrenCpuSeconds, treeCpuSeconds } from './support/proc.js';
import { summarizeProfile, type CpuProfile, type ProfileSummary } from './support/profile.js';
import { parseWrk, tallyWarnings } from './irl/wrk-output.js';
import { BenchFailure, call, expectOk, runWrk, wrkVersion } from './irl/wrk-run.js';
import { hotAgentReport, roundOrder, type LoadName, type Round } from './support/hot-agent-report.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAX_ERROR_SHARE = 0.01;

const log = (line: string): void => {
  process.stderr.write(`[bench] ${line}\n`);
};

function options(): { rounds: number; seconds: number; threads: number; connections: number; agents: number; pool: number; profile: boolean; out: string } {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string' },
      seconds: { type: 'string' },
      threads: { type: 'string' },
      connections: { type: 'string' },
      agents: { type: 'string' },
      pool: { type: 'string' },
      profile: { type: 'boolean' },
      out: { type: 'string' },
    },
  });
  const whole = (raw: string | undefined, fallback: number, name: string, min = 1): number => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new BenchFailure(`--${name} must be a whole number >= ${min}, got ${raw}`);
    return n;
  };
  return {
    rounds: whole(values.rounds, 5, 'rounds', 5),
    seconds: whole(values.seconds, 10, 'seconds'),
    threads: whole(values.threads, 2, 'threads'),
    connections: whole(values.connections, 100, 'connections'),
    agents: whole(values.agents, 100, 'agents', 2),
    pool: whole(values.pool, 50, 'pool'),
    profile: values.profile ?? false,
    out: resultPath('hot-agent', values.out),
  };
}

async function main(): Promise<void> {
  const opt = options();
  const version = await wrkVersion();
  if (!version) throw new BenchFailure('wrk is not installed (Debian: apt-get install -y wrk)');
  const cleanups: Array<() => Promise<void>> = [];
  try {
    const serverUrl = process.env.DATABASE_URL && process.env.DATABASE_URL !== '' ? process.env.DATABASE_URL : null;
    const db = await openBenchDatabase({ serverUrl, durable: true, maxConnections: opt.pool + 40 });
    cleanups.push(() => db.drop());
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tradeseal-hot-agent-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const policyPath = path.join(dir, 'policy.json');
    const policy = JSON.parse(readFileSync(path.join(REPO, 'data/policy/default.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(policyPath, JSON.stringify({ ...policy, id: `${String(policy.id)}-no-throttle`, max_orders_per_second: null }, null, 2));
    log(`starting the engine server (one process, a pool of ${opt.pool}, LAYER2_ENABLED=false)…`);
    const server = await startServer({
      DATABASE_URL: db.url,
      LAYER2_ENABLED: 'false',
      POLICY_PATH: policyPath,
      LOG_LEVEL: 'silent',
      BENCH_POOL: String(opt.pool),
      BENCH_WORKERS: '1',
      BENCH_OWNER_TOKEN: newTokenSecret(),
    });
    cleanups.push(() => server.stop());
    const owner = server.ownerToken;
    await expectOk(call(server.url, owner, 'POST', '/engine/admin/regime', { regime: 'expansion', risk_score: 0.2, reason: 'benchmark' }), 'publish a regime');

    const modelHash = randomBytes(32).toString('hex');
    const irlAgent = await expectOk(
      call(server.url, owner, 'POST', '/irl/agents', { name: 'hot-irl', model_hash_hex: modelHash, max_notional: 1_000_000 }),
      'register the IRL agent',
    );
    const engineAgents: string[] = [];
    for (let i = 0; i <= opt.agents; i++) {
      const a = await expectOk(
        call(server.url, owner, 'POST', '/engine/admin/agents', {
          name: `hot-${i}`,
          max_notional: 1_000_000,
          models: [{ model_id: 'default', model_hash_hex: modelHash }],
        }),
        'register an agent',
      );
      engineAgents.push(String(a.agent_id));
    }
    const [single, ...many] = engineAgents as [string, ...string[]];
    const irlId = String(irlAgent.agent_id ?? irlAgent.id);
    const issued = await expectOk(
      call(server.url, owner, 'POST', '/engine/admin/tokens', { client_name: 'hot-agent-bench', agent_ids: [irlId, ...engineAgents] }),
      'issue a client token',
    );
    const token = String(issued.token);

    const wrkArgs = (script: string, route: string, seconds: number): string[] => [
      `-t${opt.threads}`,
      `-c${opt.connections}`,
      `-d${seconds}s`,
      '-s',
      script,
      `${server.url}${route}`,
    ];
    let runs = 0;
    const loads: Record<LoadName, (seconds: number) => { args: string[]; env: Record<string, string> }> = {
      floor: (s) => ({ args: wrkArgs('bench/irl/floor.lua', '/bench/floor', s), env: {} }),
      engine_many: (s) => ({
        args: wrkArgs('bench/irl/engine-authorize.lua', '/engine/authorize', s),
        env: { TOKEN: token, AGENT_IDS: many.join(','), MODEL_HASH: modelHash, RUN_ID: `many${++runs}` },
      }),
      engine_one: (s) => ({
        args: wrkArgs('bench/irl/engine-authorize.lua', '/engine/authorize', s),
        env: { TOKEN: token, AGENT_IDS: single, MODEL_HASH: modelHash, RUN_ID: `one${++runs}` },
      }),
      irl_one: (s) => ({
        args: wrkArgs('bench/irl/authorize.lua', '/irl/authorize', s),
        env: { IRL_API_TOKEN: token, AGENT_ID: irlId, MODEL_HASH: modelHash },
      }),
    };
    const names = Object.keys(loads) as LoadName[];

    const cpu = (): { server: number | null; postgres: number | null; wrk: number | null } => ({
      server: treeCpuSeconds(server.child.pid as number),
      postgres: db.postmasterPid === null ? null : treeCpuSeconds(db.postmasterPid),
      wrk: reapedChildrenCpuSeconds(),
    });
    const measure = async (name: LoadName, seconds: number): Promise<Round> => {
      const { args, env } = loads[name](seconds);
      const before = cpu();
      const run = await runWrk(args, env, true);
      if (run.code !== 0) throw new BenchFailure(`wrk (${name}) exited with ${run.code}: ${run.stderr.slice(0, 2000)}`);
      await server.drain();
      const after = cpu();
      const f = parseWrk(run.stdout);
      const warnings = tallyWarnings(run.stderr);
      // The IRL script's repeated client_order_ids with another agent_valid_time second: its own 409s.
      const retries = name === 'irl_one' ? (warnings.byStatus['409'] ?? 0) : 0;
      const errors = f.non2xx - retries + f.socketErrors;
      if (errors / Math.max(1, f.requests + f.socketErrors) > MAX_ERROR_SHARE)
        throw new BenchFailure(`${name}: ${errors} of ${f.requests} answers were errors: ${JSON.stringify(warnings.samples).slice(0, 1000)}`);
      if (f.rps === null || f.p99 === null) throw new BenchFailure(`${name}: wrk printed no rate or p99:\n${run.stdout}`);
      const perRequest = (k: 'server' | 'postgres' | 'wrk'): number | null => {
        const a = before[k];
        const b = after[k];
        return a === null || b === null || f.requests === 0 ? null : ((b - a) * 1000) / f.requests;
      };
      return {
        load: name,
        rps: f.rps,
        p50_ms: f.p50,
        p99_ms: f.p99,
        requests: f.requests,
        conflicts_409: retries,
        cpu_ms_per_request: { server: perRequest('server'), postgres: perRequest('postgres'), wrk: perRequest('wrk') },
      };
    };

    log(`warming up: ${names.map((n) => `${n} ${Math.min(5, opt.seconds)} s`).join(', ')}`);
    for (const n of names) await measure(n, Math.min(5, opt.seconds));
    const rounds: Round[][] = [];
    const loadBefore = os.loadavg();
    for (let r = 0; r < opt.rounds; r++) {
      const order = roundOrder(names, r);
      log(`round ${r + 1} of ${opt.rounds}, ${opt.seconds} s each: ${order.join(', ')}`);
      const round: Round[] = [];
      for (const n of order) round.push(await measure(n, opt.seconds));
      rounds.push(round);
    }
    const profiles: Array<{ load: LoadName; summary: ProfileSummary }> = [];
    if (opt.profile) {
      for (const n of names.filter((x) => x !== 'floor')) {
        const file = path.join(dir, `${n}.cpuprofile`);
        await server.request({ type: 'profile-start' }, 'profile-started');
        await measure(n, opt.seconds);
        await server.request({ type: 'profile-stop', file }, 'profile-written');
        const summary = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, 25);
        profiles.push({ load: n, summary });
        log(`profile of the server under ${n}: busy ${summary.busyMs.toFixed(0)} of ${summary.wallMs.toFixed(0)} ms`);
        for (const a of summary.areas.slice(0, 12)) log(`  area ${(a.share * 100).toFixed(1)}% ${a.name}`);
        for (const f of summary.functions.slice(0, 25)) log(`  fn   ${(f.share * 100).toFixed(1)}% ${f.name}`);
      }
    }
    const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}, ${db.version} (${db.description}, durable commits)`;
    const report = hotAgentReport(rounds, {
      machine,
      wrk: `${version} -t${opt.threads} -c${opt.connections} -d${opt.seconds}s`,
      rounds: opt.rounds,
      agents: opt.agents,
    });
    console.log(report.text);
    const file = writeResult(opt.out, { benchmark: 'hot-agent', load_average_before: loadBefore, options: opt, rounds, summary: report.summary, profiles });
    log(`written: ${file}`);
  } finally {
    for (const fn of cleanups.reverse()) await fn().catch(() => {});
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof BenchFailure ? `\nBENCHMARK INVALID: ${error.message}` : error);
  process.exitCode = 1;
});
