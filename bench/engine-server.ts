/**
 * The engine server under benchmark, run as a child process of bench/engine.ts so that the load generator
 * does not share its event loop. It is the real server: `buildApp` with the settings of the environment
 * (the parent sets DATABASE_URL, LAYER2_ENABLED, REGIME_OPERATOR_PUBKEY, POLICY_PATH, LOG_LEVEL), migrated,
 * listening on 127.0.0.1 on a free port, with a store pool of BENCH_POOL connections.
 *
 * Beside the engine's routes, the same process serves the floor the engine is compared with, through the
 * same Fastify instance and the same postgres.js pool:
 * - `GET /bench/noop`: does nothing (the HTTP stack alone);
 * - `POST /bench/floor`: one INSERT of a small row into `bench_floor` (the HTTP stack plus one commit);
 * - `POST /bench/floor-5rt`: four `select 1` and the same INSERT, in sequence: five round trips, as many as
 *   authorize and bind make, each as cheap as a statement can be (a diagnostic, not the floor).
 *
 * Talks to the parent over IPC: sends `{type: 'ready', url, ownerToken}`; answers `counts` (responses by route
 * and status class, requests in flight), `profile-start` and `profile-stop` (a V8 CPU profile of this process,
 * written to the file named), and ends on `stop`.
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { loadConfig } from '../src/config.js';
import { bootstrapOwnerToken } from '../src/engine/store/tokens.js';
import { buildApp } from '../src/http/app.js';
import { openStore } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';

export type ParentMessage = { type: 'stop' } | { type: 'profile-start' } | { type: 'profile-stop'; file: string } | { type: 'counts' };
/** Responses the server finished, by route and status class (`POST /engine/authorize 2xx`), and requests still in flight. */
export interface ServerCounts {
  finished: Record<string, number>;
  inFlight: number;
}
export type ChildMessage =
  | { type: 'ready'; url: string; ownerToken: string }
  | { type: 'counts'; counts: ServerCounts }
  | { type: 'profile-started' }
  | { type: 'profile-written'; file: string }
  | { type: 'failed'; message: string };

const send = (m: ChildMessage): void => {
  process.send?.(m);
};

async function main(): Promise<void> {
  if (!process.send) throw new Error('bench/engine-server.ts runs as a child of bench/engine.ts (it needs an IPC channel)');
  // A benchmark harness setting, not one of tradeseal's (src/config.ts reads those).
  const pool = Number(process.env.BENCH_POOL ?? '50');
  const config = loadConfig(process.env);
  const store = await openStore(config, { max: pool });
  await migrate(store.sql);
  await store.sql`create table if not exists bench_floor (
    id bigint generated always as identity primary key,
    payload text not null,
    at timestamptz not null default now()
  )`;
  const owner = await bootstrapOwnerToken(store.sql);
  if (!owner) throw new Error('the scratch database already has an owner token');

  const app = await buildApp(config, { sql: store.sql, logger: false });
  const sql = store.sql;
  // The server's own count of what it answered: the parent divides CPU time and statements by it, so the
  // requests still in flight when a load run ends are neither lost nor charged to the wrong run. A request
  // leaves `inFlight` when its response closes, answered or not: a client that disconnects while an async
  // onRequest hook (the engine's token lookup) is pending leaves a request that Fastify never answers.
  const counts: ServerCounts = { finished: {}, inFlight: 0 };
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
  // A diagnostic floor: as many round trips as authorize and bind make (5), each as cheap as can be, in
  // sequence; the difference from the engine's routes is what their own work and heavier statements cost.
  app.post<{ Body: { payload?: string } }>('/bench/floor-5rt', { schema: { hide: true } }, async (req) => {
    for (let i = 0; i < 4; i++) await sql`select 1 as one`;
    const [row] = await sql<Array<{ id: number }>>`insert into bench_floor (payload) values (${req.body?.payload ?? ''}) returning id`;
    return { id: row?.id };
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });

  let session: Session | null = null;
  let closing = false;
  const close = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    await app.close().catch(() => {});
    await store.close().catch(() => {});
    process.exit(0);
  };
  process.on('disconnect', () => void close());
  process.on('SIGTERM', () => void close());
  process.on('message', (m: ParentMessage) => {
    void (async () => {
      if (m.type === 'stop') return close();
      if (m.type === 'counts') return send({ type: 'counts', counts: structuredClone(counts) });
      if (m.type === 'profile-start') {
        session = new Session();
        session.connect();
        await session.post('Profiler.enable');
        await session.post('Profiler.setSamplingInterval', { interval: 200 });
        await session.post('Profiler.start');
        send({ type: 'profile-started' });
      } else if (m.type === 'profile-stop' && session) {
        const { profile } = await session.post('Profiler.stop');
        session.disconnect();
        session = null;
        await writeFile(m.file, JSON.stringify(profile));
        send({ type: 'profile-written', file: m.file });
      }
    })().catch((error: unknown) => send({ type: 'failed', message: (error as Error).message }));
  });
  send({ type: 'ready', url, ownerToken: owner.token });
}

main().catch((error: unknown) => {
  send({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 100).unref();
});
