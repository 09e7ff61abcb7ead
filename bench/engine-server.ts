/**
 * The engine server under benchmark, run as a child process of bench/engine.ts so that the load generator
 * does not share its event loop. It is the real server: `buildApp` with the settings of the environment
 * (the parent sets DATABASE_URL, LAYER2_ENABLED, REGIME_OPERATOR_PUBKEY, POLICY_PATH, LOG_LEVEL), migrated,
 * listening on 127.0.0.1 on a free port, with a store pool of BENCH_POOL connections, the statement timeout and
 * the background jobs of `serve` (in one process: the first worker, as `serve --workers N` elects one).
 *
 * Beside the engine's routes, the same process serves the floor the engine is compared with, through the
 * same Fastify instance and the same postgres.js pool:
 * - `GET /bench/noop`: does nothing (the HTTP stack alone);
 * - `POST /bench/floor`: one INSERT of a small row into `bench_floor` (the HTTP stack plus one commit);
 * - `POST /bench/floor-5rt`: four `select 1` and the same INSERT, in sequence: five round trips, as many as
 *   authorize and bind make, each as cheap as a statement can be (a diagnostic, not the floor);
 * - `POST /bench/floor-verify`: an authorize request's body, its heartbeat's Ed25519 signature verified as
 *   authorize verifies it, and the body stored by the same one INSERT: what any authorize must do at least
 *   (an upper bound on authorize's throughput on this machine; authorize's target is relative to it).
 *
 * With `BENCH_WORKERS` = N > 1 it is a node:cluster primary, as `tradeseal serve --workers N` is: it migrates,
 * then forks N workers that serve on one port, each with a pool of BENCH_POOL / N connections; counts are the
 * workers' summed, and profiles are of the first worker.
 *
 * Talks to the parent over IPC: sends `{type: 'ready', url, ownerToken, workerPids}`; answers `counts`
 * (responses by route and status class, requests in flight), `profile-start` and `profile-stop` (a V8 CPU
 * profile of the serving process, written to the file named), and ends on `stop`.
 */
import cluster, { type Worker } from 'node:cluster';
import { writeFile } from 'node:fs/promises';
import net from 'node:net';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/core/config.js';
import { heartbeatSignatureValid, type SignedHeartbeat } from '../src/engine/heartbeat/check.js';
import { bootstrapOwnerToken } from '../src/engine/store/tokens.js';
import { buildApp, SERVICES } from '../src/http/app.js';
import { ServerMetrics } from '../src/http/metrics.js';
import { startSingletons } from '../src/http/singletons.js';
import { openStore } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';

export type ParentMessage = { type: 'stop' } | { type: 'profile-start' } | { type: 'profile-stop'; file: string } | { type: 'counts' };
/** Responses the server finished, by route and status class (`POST /engine/authorize 2xx`), and requests still in flight. */
export interface ServerCounts {
  finished: Record<string, number>;
  inFlight: number;
  /** The main threads' event loops since they started (performance.eventLoopUtilization): ms active and idle, summed over workers. */
  loop: { activeMs: number; idleMs: number };
}
export type ChildMessage =
  | { type: 'ready'; url: string; ownerToken: string; workerPids: number[] }
  | { type: 'counts'; counts: ServerCounts }
  | { type: 'profile-started' }
  | { type: 'profile-written'; file: string }
  | { type: 'failed'; message: string };

const send = (m: ChildMessage): void => {
  process.send?.(m);
};

/** The store, migrated, with the floor's table and an owner token; done once, by the primary. */
async function prepare(config: ReturnType<typeof loadConfig>): Promise<string> {
  const store = await openStore(config, { max: 1 });
  try {
    await migrate(store.sql);
    await store.sql`create table if not exists bench_floor (
      id bigint generated always as identity primary key,
      payload text not null,
      at timestamptz not null default now()
    )`;
    // The parent names the owner token, so that a server started again on the same database uses the same one.
    const secret = process.env.BENCH_OWNER_TOKEN;
    const owner = await bootstrapOwnerToken(store.sql, secret);
    if (!owner && !secret) throw new Error('the scratch database already has an owner token');
    return owner?.token ?? (secret as string);
  } finally {
    await store.close();
  }
}

/**
 * One server process: the app and the floor routes on `port` (0: a free one), a pool of `pool` connections,
 * the statement timeout `serve` sets, and, when `jobs`, the background jobs `serve` runs in one process (the
 * transparency log's sequencer, the expiry sweeper, the audit anchorer, the signal service's): their work
 * is part of what serving costs, and the routes share the cores and the pool with it.
 */
async function serve(
  config: ReturnType<typeof loadConfig>,
  pool: number,
  port: number,
  jobs: boolean,
): Promise<{ url: string; counts: ServerCounts; close: () => Promise<void> }> {
  const store = await openStore(config, { max: pool, statementTimeoutMs: config.storeStatementTimeoutMs });
  const metrics = new ServerMetrics(store.sql);
  const app = await buildApp(config, { sql: store.sql, logger: false, metrics });
  const sql = store.sql;
  const quiet = { info: () => {}, warn: () => {}, error: (obj: unknown, msg?: string) => console.error(msg ?? '', obj) };
  const stopJobs = jobs ? startSingletons(sql, config, { services: SERVICES, metrics, log: quiet }) : async () => {};
  // The server's own count of what it answered: the parent divides CPU time and statements by it, so the
  // requests still in flight when a load run ends are neither lost nor charged to the wrong run. A request
  // leaves `inFlight` when its response closes, answered or not: a client that disconnects while an async
  // onRequest hook (the engine's token lookup) is pending leaves a request that Fastify never answers.
  const counts: ServerCounts = {
    finished: {},
    inFlight: 0,
    // Read when the counts are (structuredClone, which sends them, reads the getter).
    get loop() {
      const u = performance.eventLoopUtilization();
      return { activeMs: u.active, idleMs: u.idle };
    },
  };
  app.addHook('onRequest', async (_req, reply) => {
    counts.inFlight++;
    reply.raw.once('close', () => {
      counts.inFlight--;
    });
  });
  app.addHook('onSend', async (req, reply, payload) => {
    const key = `${req.method} ${req.routeOptions.url ?? '(no route)'} ${Math.floor(reply.statusCode / 100)}xx`;
    counts.finished[key] = (counts.finished[key] ?? 0) + 1;
    return payload;
  });
  app.get('/bench/noop', { schema: { hide: true } }, async () => ({ ok: true }));
  app.post<{ Body: { payload?: string } }>('/bench/floor', { schema: { hide: true } }, async (req) => {
    const [row] = await sql<Array<{ id: number }>>`insert into bench_floor (payload) values (${req.body?.payload ?? ''}) returning id`;
    return { id: row?.id };
  });
  // A diagnostic floor: five round trips, each as cheap as can be, in sequence; the difference from the
  // engine's routes is what their own work and heavier statements cost.
  app.post<{ Body: { payload?: string } }>('/bench/floor-5rt', { schema: { hide: true } }, async (req) => {
    for (let i = 0; i < 4; i++) await sql`select 1 as one`;
    const [row] = await sql<Array<{ id: number }>>`insert into bench_floor (payload) values (${req.body?.payload ?? ''}) returning id`;
    return { id: row?.id };
  });
  // A lower bound on authorize's work: receive its body, verify one heartbeat signature, commit one row of the
  // body's size. Authorize does all of this and more, so its throughput cannot exceed this route's.
  app.post<{ Body: { heartbeat?: SignedHeartbeat } }>('/bench/floor-verify', { schema: { hide: true } }, async (req, reply) => {
    const hb = req.body?.heartbeat;
    if (!hb || !(await heartbeatSignatureValid(hb, config.regimeOperatorPubkey))) return reply.code(403).send({ error: 'signature' });
    const [row] = await sql<Array<{ id: number }>>`insert into bench_floor (payload) values (${JSON.stringify(req.body)}) returning id`;
    return { id: row?.id };
  });
  const url = await app.listen({ host: '127.0.0.1', port });
  return {
    url,
    counts,
    close: async () => {
      await stopJobs();
      await app.close().catch(() => {});
      await store.close().catch(() => {});
    },
  };
}

/** Sums the workers' counts. */
function addCounts(all: ServerCounts[]): ServerCounts {
  const sum: ServerCounts = { finished: {}, inFlight: 0, loop: { activeMs: 0, idleMs: 0 } };
  for (const c of all) {
    sum.inFlight += c.inFlight;
    sum.loop.activeMs += c.loop.activeMs;
    sum.loop.idleMs += c.loop.idleMs;
    for (const [k, n] of Object.entries(c.finished)) sum.finished[k] = (sum.finished[k] ?? 0) + n;
  }
  return sum;
}

/** Profiling and counts in this process, on the parent's (or the primary's) request. */
function answerer(counts: () => ServerCounts | Promise<ServerCounts>, reply: (m: ChildMessage) => void): (m: ParentMessage) => Promise<void> {
  let session: Session | null = null;
  return async (m) => {
    if (m.type === 'counts') return reply({ type: 'counts', counts: structuredClone(await counts()) });
    if (m.type === 'profile-start') {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
      reply({ type: 'profile-started' });
    } else if (m.type === 'profile-stop' && session) {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      session = null;
      await writeFile(m.file, JSON.stringify(profile));
      reply({ type: 'profile-written', file: m.file });
    }
  };
}

/** A worker of `BENCH_WORKERS` > 1: serves on the primary's port; answers the primary's requests. */
async function worker(): Promise<void> {
  const config = loadConfig(process.env);
  // The first worker runs the background jobs, as the elected worker of `serve --workers N` does.
  const { counts, close } = await serve(config, Number(process.env.BENCH_POOL ?? '50'), Number(process.env.BENCH_PORT), process.env.BENCH_JOBS === '1');
  const reply = (m: ChildMessage): void => {
    process.send?.(m);
  };
  const answer = answerer(() => counts, reply);
  process.on('message', (m: ParentMessage) => {
    if (m.type === 'stop') void close().then(() => process.exit(0));
    else void answer(m).catch((error: unknown) => reply({ type: 'failed', message: (error as Error).message }));
  });
  reply({ type: 'ready', url: '', ownerToken: '', workerPids: [process.pid] });
}

async function main(): Promise<void> {
  if (cluster.isWorker) return worker();
  if (!process.send) throw new Error('bench/engine-server.ts runs as a child of bench/engine.ts (it needs an IPC channel)');
  // Benchmark harness settings, not tradeseal's (src/core/config.ts reads those): the pool is shared out among the
  // workers, so --pool is the connections of the whole server.
  const pool = Number(process.env.BENCH_POOL ?? '50');
  const workers = Number(process.env.BENCH_WORKERS ?? '1');
  const config = loadConfig(process.env);
  const ownerToken = await prepare(config);
  const close: Array<() => Promise<void>> = [];
  let counts: () => Promise<ServerCounts>;
  let url: string;
  let profiled: (m: ParentMessage) => Promise<void>;
  const workerPids: number[] = [];
  if (workers <= 1) {
    const one = await serve(config, pool, 0, true);
    close.push(one.close);
    url = one.url;
    counts = async () => one.counts;
    profiled = answerer(counts, send);
    workerPids.push(process.pid);
  } else {
    // node:cluster, as `tradeseal serve --workers N`: N processes accept on one port, sharing nothing but
    // PostgreSQL. The port is chosen first, so every worker listens on the same one.
    const port = await freePort();
    const perWorker = Math.max(1, Math.ceil(pool / workers));
    const forked = Array.from({ length: workers }, (_, i) =>
      cluster.fork({ ...process.env, BENCH_PORT: String(port), BENCH_POOL: String(perWorker), BENCH_JOBS: i === 0 ? '1' : '0' }),
    );
    const ask = (w: Worker, m: ParentMessage, type: ChildMessage['type']): Promise<ChildMessage> =>
      new Promise((resolve, reject) => {
        const on = (r: ChildMessage): void => {
          if (r.type === type || r.type === 'failed') {
            w.off('message', on);
            if (r.type === 'failed') reject(new Error(r.message));
            else resolve(r);
          }
        };
        w.on('message', on);
        if (m.type !== 'stop' || w.isConnected()) w.send(m);
      });
    await Promise.all(
      forked.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            w.once('message', (r: ChildMessage) => (r.type === 'ready' ? resolve() : reject(new Error(r.type === 'failed' ? r.message : 'unexpected'))));
            w.once('exit', (code) => reject(new Error(`a worker exited (code ${code}) before it was ready`)));
          }),
      ),
    );
    for (const w of forked) workerPids.push(w.process.pid as number);
    url = `http://127.0.0.1:${port}`;
    counts = async () =>
      addCounts(await Promise.all(forked.map(async (w) => ((await ask(w, { type: 'counts' }, 'counts')) as { counts: ServerCounts }).counts)));
    // Profiles: of the first worker (the workers run the same code under the same load).
    profiled = async (m) => {
      if (m.type === 'counts') return send({ type: 'counts', counts: await counts() });
      const first = forked[0] as Worker;
      if (m.type === 'profile-start') send(await ask(first, m, 'profile-started'));
      else if (m.type === 'profile-stop') send(await ask(first, m, 'profile-written'));
    };
    close.push(async () => {
      await Promise.all(
        forked.map(
          (w) =>
            new Promise<void>((resolve) => {
              if (w.isDead()) return resolve();
              w.once('exit', () => resolve());
              w.send({ type: 'stop' });
            }),
        ),
      );
    });
  }

  let closing = false;
  const stop = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    for (const fn of close) await fn();
    process.exit(0);
  };
  process.on('disconnect', () => void stop());
  process.on('SIGTERM', () => void stop());
  process.on('message', (m: ParentMessage) => {
    if (m.type === 'stop') return void stop();
    void profiled(m).catch((error: unknown) => send({ type: 'failed', message: (error as Error).message }));
  });
  send({ type: 'ready', url, ownerToken, workerPids });
}

/** A free TCP port on 127.0.0.1. */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

main().catch((error: unknown) => {
  send({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 100).unref();
});
