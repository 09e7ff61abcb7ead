/**
 * Guarantee: a store that flaps does not end a server. PostgreSQL is stopped (`-m fast`, as an operator's
 * restart) and started again 20 times in quick succession while `serve --workers 1` and `serve --workers 2` run
 * on it at once under load: no server process and no worker ends (the primary of `--workers 2` replaces none),
 * every request is answered 200 or 503 `service_unavailable` with `Retry-After`, and every order acknowledged
 * (authorize answered 200) is in the store afterwards. Afterwards SIGTERM still drains each server and it exits 0.
 *
 * The store stays up for a varying while between a start and the next stop (0 to 600 ms), so that stops land
 * while the pools are opening their connections: postgres.js looks up the array types on each new connection,
 * and a store that closed the connection during that lookup ended the process by an unhandled rejection
 * (patches/postgres+3.4.9.patch, repair 5). After the flaps a worker's drain waited forever on a reserve() the pool
 * had lost (repair 6), and a process whose drain finished stayed alive on a connection reopened after its pool
 * ended (repair 7).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAccountKey } from '../../src/signals/ops/keys.js';
import { privateStore, type PrivateStore } from './support/cluster.js';
import { authorizeRequest, engineSettings, Ledger, publishRegime, registerAgent, type Agent, type EngineSettings, type Regime } from './support/engine.js';
import { Client, runLoad, type RequestSpec, type Sample } from './support/http.js';
import { startServerProcess, type ServerProcess } from './support/server.js';
import { removeTempDirs } from './support/temp.js';

const FLAPS = 20;
const DOWN_MS = 300;
const UP_MS = [0, 150, 300, 600];
/** Closed-loop clients per server: enough that every stop finds requests in flight. */
const CLIENTS = 4;

interface Served {
  workers: number;
  server: ServerProcess;
  client: Client;
  agents: Agent[];
  ledger: Ledger;
}

let store: PrivateStore;
let settings: EngineSettings;
let regime: Regime;
let signalsKey: string;
let served: Served[] = [];

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  store = await privateStore();
  settings = await engineSettings(store.url, { env: { STORE_CONNECT_TIMEOUT_MS: '1000', STORE_STATEMENT_TIMEOUT_MS: '2000' } });
  // Both at once (they migrate the empty store together, under the migrations' lock).
  served = await Promise.all(
    [1, 2].map(async (workers) => {
      const server = await startServerProcess({ ...settings.env, SERVE_WORKERS: String(workers) }, `flap-${workers}`);
      return { workers, server, client: new Client(server.url, CLIENTS, 15_000), agents: [], ledger: new Ledger() };
    }),
  );
  regime = await publishRegime(served[0]!.client, settings.ownerToken);
  // Every worker has read the broadcast (ENGINE_STATE_REFRESH_MS, 250 ms) before the first order.
  await sleep(1000);
  await Promise.all(
    served.map(async (s) => {
      s.agents = await Promise.all(Array.from({ length: CLIENTS }, () => registerAgent(s.client, settings.ownerToken)));
    }),
  );
  signalsKey = (await issueAccountKey(store.admin, { email: 'flap@example.test', tier: 'pro' })).api_key;
}, 180_000);
afterAll(async () => {
  for (const s of served) s.client.close();
  await Promise.all(served.map((s) => s.server.stop()));
  await store?.close();
  await removeTempDirs();
});

/** What went wrong with a server's processes so far: it exited, a worker ended or was replaced, or Node reported an unhandled rejection. */
async function processFaults(s: Served): Promise<string[]> {
  const exit = await Promise.race([s.server.exited, sleep(0).then(() => null)]);
  const log = s.server.log();
  const faults = log.split('\n').filter((l) => /worker \d+ (ended unexpectedly|could not start)|unhandled|Unhandled|triggerUncaughtException/.test(l));
  if (exit !== null) faults.unshift(`the server exited (${exit})`);
  return faults;
}

/** Throws at the first fault of any server, naming every server's. */
async function failFast(flap: number): Promise<void> {
  const found = await Promise.all(served.map(async (s) => ({ s, faults: await processFaults(s) })));
  const faulty = found.filter((f) => f.faults.length > 0);
  if (faulty.length === 0) return;
  throw new Error(
    `after ${flap} flap(s):\n${faulty.map(({ s, faults }) => `serve --workers ${s.workers}: ${faults.slice(0, 5).join('\n')}\n--- its log's tail ---\n${s.server.log().slice(-1500)}`).join('\n\n')}`,
  );
}

/** Orders and account reads, each answered 503 retried as it was (the same client_order_id), as a client should. */
function load(s: Served, stop: () => boolean): Promise<Array<Sample<RequestSpec>>> {
  const retry: Array<RequestSpec | null> = s.agents.map(() => null);
  let step = 0;
  return runLoad<RequestSpec>(s.client, {
    workers: CLIENTS,
    next: (w) =>
      retry[w] ??
      (++step % 3 === 0 ? { method: 'GET', path: '/v1/account', headers: { 'x-signals-key': signalsKey } } : authorizeRequest(settings, s.agents[w]!, regime)),
    stop,
    onAnswer: (sample) => {
      retry[sample.worker] = sample.status === 503 ? sample.request : null;
      s.ledger.record(sample.request, sample.status, sample.body);
    },
    pauseAfterNoAnswerMs: 200,
  });
}

/** Anything but a 200 or a 503 `service_unavailable` with `Retry-After`: a 500, a dropped connection, a timeout. */
function wrongAnswers(samples: Array<Sample<RequestSpec>>): string[] {
  return samples
    .filter((a) => {
      if (a.status === 200) return false;
      if (a.status !== 503) return true;
      return (JSON.parse(a.body) as { code?: string }).code !== 'service_unavailable' || a.headers['retry-after'] !== '1';
    })
    .map((a) => `${a.request.method} ${a.request.path}: ${a.status} ${a.error ?? a.body.slice(0, 200)} retry-after=${a.headers['retry-after']}`);
}

describe('a store that flaps under load', () => {
  it(`stopped and started ${FLAPS} times: every server process stays up, every answer is 200 or 503 with Retry-After, nothing acknowledged is lost`, async () => {
    let flapping = true;
    let backAt = Number.POSITIVE_INFINITY;
    const loads = served.map((s) => load(s, () => !flapping && Date.now() > backAt + 1500));
    await sleep(500);
    try {
      for (let i = 0; i < FLAPS; i++) {
        await store.cluster.halt('fast');
        await sleep(DOWN_MS);
        await store.cluster.resume();
        await sleep(UP_MS[i % UP_MS.length]!);
        await failFast(i + 1);
      }
    } finally {
      backAt = Date.now();
      flapping = false;
    }
    const samples = await Promise.all(loads);
    await failFast(FLAPS);
    for (const [i, s] of served.entries()) {
      const answers = samples[i]!;
      expect(wrongAnswers(answers).slice(0, 5), `serve --workers ${s.workers}`).toEqual([]);
      // The flaps were felt (503s), and the server serves again once the store stays up.
      expect(answers.filter((a) => a.status === 503).length, `serve --workers ${s.workers}`).toBeGreaterThan(0);
      expect(answers.filter((a) => a.status === 200 && a.sentAt > backAt).length, `serve --workers ${s.workers}`).toBeGreaterThan(0);
      expect(s.ledger.authorized.size).toBeGreaterThan(0);
      expect(await s.ledger.missing(store.admin), `serve --workers ${s.workers}`).toEqual([]);
    }
  }, 120_000);

  it('SIGTERM after the flaps: every server drains and exits 0 within seconds', async () => {
    await Promise.all(
      served.map(async (s) => {
        const started = Date.now();
        s.server.stop().catch(() => {});
        const exit = await Promise.race([s.server.exited, sleep(10_000).then(() => 'still running after 10 s')]);
        expect(exit, `serve --workers ${s.workers}:\n${s.server.log().slice(-2000)}`).toBe(0);
        expect(Date.now() - started).toBeLessThan(10_000);
      }),
    );
  }, 30_000);
});
