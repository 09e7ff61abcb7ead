/**
 * `tradeseal serve --workers 2` as an operator runs it, on a scratch database: real concurrent HTTP through
 * the one port reaches both workers and gets the answers one server gives (one bind of a trace, one order per
 * heartbeat, one trace per client_order_id); one worker, elected on the database, runs the background jobs,
 * and another takes over when it dies (the primary replaces the dead one); `/metrics` answers for both;
 * SIGTERM lets a request in flight finish, then the serve exits 0. A worker that cannot start fails the serve.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADVISORY_LOCKS } from '../../src/store/advisory-lock.js';
import { testDbInfo, testStore, type TestStore } from '../helpers/db.js';
import { cliEnv, describeRun, runCliProcess, tempHome } from '../helpers/cli.js';
import {
  authorizeRequest,
  bindRequest,
  engineSettings,
  heartbeat,
  publishRegime,
  registerAgent,
  type EngineSettings,
  type Regime,
} from '../reliability/support/engine.js';
import { Client, type Answer } from '../reliability/support/http.js';
import { startServerProcess, type ServerProcess } from '../reliability/support/server.js';
import { removeTempDirs } from '../reliability/support/temp.js';

const N = 8;
const postgresOnly = testDbInfo().mode === 'postgres';
const home = tempHome();

let store: TestStore;
let settings: EngineSettings;
let serve: ServerProcess;
let client: Client;
let regime: Regime;

const body = (x: Answer): Record<string, unknown> => JSON.parse(x.body) as Record<string, unknown>;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const until = async (what: string, ok: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}\n${serve.log().slice(-3000)}`);
    await sleep(50);
  }
};
/** The pids the workers' logs say took the lead, in order. */
const leaders = (): number[] => [...serve.log().matchAll(/"msg":"process (\d+) leads/g)].map((m) => Number(m[1]));
const lockHolders = async (): Promise<number> => {
  const [row] = await store.sql<Array<{ n: number }>>`
    select count(*)::int as n from pg_locks where locktype = 'advisory' and granted
      and database = (select oid from pg_database where datname = current_database())
      and ((classid::bigint << 32) | objid::bigint) = ${ADVISORY_LOCKS.leader}`;
  return row?.n ?? 0;
};
const metric = async (name: string): Promise<number> => {
  const text = (await client.send({ method: 'GET', path: '/metrics' })).body;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? Number.NaN : Number(line.slice(name.length + 1));
};

beforeAll(async () => {
  if (!postgresOnly) return;
  store = await testStore();
  settings = await engineSettings(store.url, { env: { SERVE_WORKERS: '2' } });
  serve = await startServerProcess(settings.env, 'workers');
  client = new Client(serve.url, N);
  regime = await publishRegime(client, settings.ownerToken);
  // The worker that took the broadcast has it at once; the other re-reads it within ENGINE_STATE_REFRESH_MS
  // (until then it fails closed, 403 regime_stale, as another instance would). Wait until both serve it.
  await until('both workers serve the regime just published', async () => {
    const answers = await Promise.all(
      Array.from({ length: 2 * N }, () => client.send({ method: 'GET', path: '/engine/regime', headers: { authorization: `Bearer ${settings.ownerToken}` } })),
    );
    const current = answers.filter((a) => a.status === 200 && body(a).regime_id === regime.regimeId);
    return current.length === answers.length && new Set(current.map((a) => a.headers['x-served-by'])).size === 2;
  });
}, 120_000);
afterAll(async () => {
  client?.close();
  await serve?.kill();
  await store?.close();
  await removeTempDirs();
});

describe.runIf(postgresOnly)('tradeseal serve --workers 2', () => {
  it('says it serves with 2 workers, and concurrent requests are answered by both (X-Served-By)', async () => {
    expect(serve.log()).toMatch(/tradeseal serving \/engine and \/v1 on http:\/\/\S+ \(store: postgres, 2 workers\)/);
    const answers = await Promise.all(Array.from({ length: 4 * N }, () => client.send({ method: 'GET', path: '/engine/health' })));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const servedBy = new Set(answers.map((a) => a.headers['x-served-by']));
    expect(servedBy.size).toBe(2);
    for (const pid of servedBy) expect(pid).toMatch(/^\d+$/);
  });

  it(`of ${N} concurrent binds of one trace exactly one is 200 and ${N - 1} are 409`, async () => {
    const agent = await registerAgent(client, settings.ownerToken);
    const auth = await client.send(authorizeRequest(settings, agent, regime));
    expect(auth.status, auth.body).toBe(200);
    const traceId = body(auth).trace_id as string;
    const answers = await Promise.all(Array.from({ length: N }, () => client.send(bindRequest(agent, traceId))));
    expect(
      answers.filter((a) => a.status === 200),
      answers.map((a) => a.body).join('\n'),
    ).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(N - 1);
    for (const a of answers.filter((x) => x.status === 409)) expect(body(a)).toMatchObject({ code: 'trace_already_bound' });
  });

  it(`of ${N} concurrent orders carrying one heartbeat exactly one is authorized`, async () => {
    const agent = await registerAgent(client, settings.ownerToken);
    const hb = heartbeat(settings, agent, regime);
    const answers = await Promise.all(Array.from({ length: N }, () => client.send(authorizeRequest(settings, agent, regime, { heartbeat: hb }))));
    expect(
      answers.filter((a) => a.status === 200),
      answers.map((a) => a.body).join('\n'),
    ).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) expect(body(a)).toMatchObject({ code: 'heartbeat_replayed' });
    const [row] = await store.sql<Array<{ n: number }>>`select count(*)::int as n from traces where agent_id = ${agent.agentId}`;
    expect(row?.n).toBe(1);
  });

  it(`${N} concurrent retries of one client_order_id all get the one trace`, async () => {
    const agent = await registerAgent(client, settings.ownerToken);
    const order = authorizeRequest(settings, agent, regime);
    const answers = await Promise.all(Array.from({ length: N }, () => client.send(order)));
    expect(
      answers.map((a) => a.status),
      answers.map((a) => a.body).join('\n'),
    ).toEqual(answers.map(() => 200));
    expect(new Set(answers.map((a) => body(a).trace_id)).size).toBe(1);
    const [row] = await store.sql<Array<{ n: number }>>`select count(*)::int as n from traces where agent_id = ${agent.agentId}`;
    expect(row?.n).toBe(1);
  });

  it('exactly one worker runs the background jobs; when it dies, the other takes over and the primary replaces it', async () => {
    await until('a leader', () => leaders().length === 1);
    expect(await lockHolders()).toBe(1);
    expect(await metric('tradeseal_singletons_running')).toBe(1);
    // Store figures are read once for both workers, not summed: one open trace per earlier test's last agent.
    const [open] = await store.sql<Array<{ n: number }>>`select count(*)::int as n from traces where verification_status = 'Pending'`;
    expect(await metric('tradeseal_traces_open')).toBe(open!.n);

    const [first] = leaders();
    process.kill(first!, 'SIGKILL');
    await until('another worker leads', () => leaders().length === 2);
    expect(leaders()[1]).not.toBe(first);
    await until('a replacement worker', () => /worker \d+ ended unexpectedly \(killed by SIGKILL\); starting a replacement in 1 s/.test(serve.log()));
    // Two workers serve again (the replacement after its backoff), one of them leading.
    await until(
      'both workers answer',
      async () => {
        // New connections: kept-alive ones stay with the worker that accepted them.
        const fresh = new Client(serve.url, N);
        const answers = await Promise.all(Array.from({ length: 2 * N }, () => fresh.send({ method: 'GET', path: '/engine/health' })));
        fresh.close();
        const pids = new Set(answers.filter((a) => a.status === 200).map((a) => Number(a.headers['x-served-by'])));
        return pids.size === 2 && !pids.has(first!);
      },
      30_000,
    );
    expect(await lockHolders()).toBe(1);
    expect(await metric('tradeseal_singletons_running')).toBe(1);
  }, 60_000);

  it('SIGTERM: a request in flight is answered, then every worker exits and the serve exits 0', async () => {
    const agent = await registerAgent(client, settings.ownerToken);
    const auth = await client.send(authorizeRequest(settings, agent, regime));
    const traceId = body(auth).trace_id as string;
    // The bind waits on the trace's row, locked here, until after the signal.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked: () => void = () => {};
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const tx = store.sql.begin(async (t) => {
      await t`select 1 from traces where trace_id = ${traceId} for update`;
      locked();
      await held;
    });
    await isLocked;
    const inFlight = new Client(serve.url, 1);
    const bind = inFlight.send(bindRequest(agent, traceId));
    await sleep(300);
    process.kill(serve.pid, 'SIGTERM');
    await until('the drain started', () => /SIGTERM received, draining 2 workers/.test(serve.log()));
    await sleep(300);
    release();
    await tx;
    const answer = await bind;
    inFlight.close();
    expect(answer.status, answer.error ?? answer.body).toBe(200);
    expect(await serve.exited).toBe(0);
    expect(await lockHolders()).toBe(0);
  }, 60_000);
});

describe.runIf(postgresOnly)('tradeseal serve --workers 2 that cannot start', () => {
  it('a worker that cannot listen (the port is taken) fails the serve with its error, without retrying', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const r = await runCliProcess(['serve', '--workers', '2', '--port', String(port)], cliEnv(home, store.url, { LOG_LEVEL: 'silent' }), 60_000);
      expect(r.code, describeRun(r)).toBe(4);
      expect(r.stderr).toContain(`port_in_use: port ${port} on 127.0.0.1 is already in use by another process`);
      expect(r.stderr).not.toMatch(/replacement/);
    } finally {
      blocker.close();
    }
  }, 60_000);
});
