/**
 * Guarantee: a store outage is a 503, briefly. While the engine's Postgres is stopped, frozen, or too slow, every
 * request is answered, within a bounded time, 200 or 503 `service_unavailable` with `Retry-After` (never a 500,
 * never a dropped connection); once the store is back the server answers 200 again within seconds, by itself;
 * nothing it acknowledged is lost.
 *
 * The server runs with shorter store timeouts than the defaults (connect 1 s, statement 2 s, so a request
 * deadline of 4 s), so that the bounds checked here stay far from the length of each outage: without the
 * timeouts a request waits as long as the outage lasts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAccountKey } from '../../src/signals/ops/keys.js';
import { freeze, privateStore, type PrivateStore } from './support/cluster.js';
import {
  authorizeRequest,
  bearer,
  bindRequest,
  engineSettings,
  Ledger,
  publishRegime,
  registerAgent,
  type Agent,
  type BindSpec,
  type EngineSettings,
  type Regime,
} from './support/engine.js';
import { Client, runLoad, type RequestSpec, type Sample } from './support/http.js';
import { startServerProcess, type ServerProcess } from './support/server.js';
import { removeTempDirs } from './support/temp.js';

const WORKERS = 12;
/** STORE_CONNECT_TIMEOUT_MS + STORE_STATEMENT_TIMEOUT_MS + 1 s, as src/http/deadline.ts computes it. */
const DEADLINE_MS = 4000;

let store: PrivateStore;
let settings: EngineSettings;
let server: ServerProcess;
let client: Client;
let regime: Regime;
let agents: Agent[];
let signalsKey: string;
const ledger = new Ledger();

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  store = await privateStore();
  settings = await engineSettings(store.url, { env: { STORE_CONNECT_TIMEOUT_MS: '1000', STORE_STATEMENT_TIMEOUT_MS: '2000' } });
  server = await startServerProcess(settings.env, 'outage');
  client = new Client(server.url, WORKERS, 60_000);
  regime = await publishRegime(client, settings.ownerToken);
  agents = [];
  for (let i = 0; i < WORKERS; i++) agents.push(await registerAgent(client, settings.ownerToken));
  signalsKey = (await issueAccountKey(store.admin, { email: 'outage@example.test', tier: 'pro' })).api_key;
}, 180_000);
afterAll(async () => {
  client?.close();
  await server?.stop();
  await store?.close();
  await removeTempDirs();
});

/**
 * Load of every kind of request while `disrupt` runs: each worker authorizes an order with its own agent, binds
 * the trace, reads it back, and reads its signal-service account, and retries a request answered 503 as a
 * client should (the same request again). Runs 1.5 s before the disruption and 4 s after the store is back
 * (`disrupt` resolves with that instant).
 */
async function underLoad(disrupt: () => Promise<number>): Promise<{ samples: Array<Sample<RequestSpec>>; backAt: number }> {
  const state = agents.map(() => ({ toBind: null as string | null, toRead: null as string | null, step: 0, retry: null as RequestSpec | null }));
  let backAt = Number.POSITIVE_INFINITY;
  const load = runLoad<RequestSpec>(client, {
    workers: WORKERS,
    next: (w) => {
      const s = state[w]!;
      const agent = agents[w]!;
      if (s.retry) return s.retry;
      s.step++;
      if (s.toBind) return bindRequest(agent, s.toBind);
      if (s.toRead && s.step % 3 === 0) return { method: 'GET', path: `/engine/trace/${s.toRead}`, headers: bearer(agent.token) };
      if (s.step % 4 === 0) return { method: 'GET', path: '/v1/account', headers: { 'x-signals-key': signalsKey } };
      return authorizeRequest(settings, agent, regime);
    },
    stop: () => Date.now() > backAt + 4000,
    onAnswer: (sample) => {
      const s = state[sample.worker]!;
      s.retry = sample.status === 503 ? sample.request : null;
      const sealed = ledger.record(sample.request, sample.status, sample.body);
      if (sealed) s.toBind = sealed;
      if ((sample.request as { kind?: string }).kind === 'bind' && (sample.status === 200 || sample.status === 409)) {
        s.toRead = s.toBind;
        s.toBind = null;
      }
    },
  });
  await sleep(1500);
  backAt = await disrupt();
  return { samples: await load, backAt };
}

/**
 * Every answer is a 200 or a 503 `service_unavailable` with `Retry-After`; none went unanswered. One more answer
 * is right: a bind answered 503 at the request deadline may still have taken effect when the store woke up,
 * and its retry is then 409 `trace_already_bound` naming the very exchange_tx_id retried (binding is once only).
 */
function expectOnlyOkOrUnavailable(samples: Array<Sample<RequestSpec>>): void {
  const wrong = samples.filter((s) => {
    if (s.status === 200) return false;
    const r = s.request as Partial<BindSpec>;
    if (s.status === 409 && r.kind === 'bind') {
      const b = JSON.parse(s.body) as { code: string; detail: string };
      return b.code !== 'trace_already_bound' || !b.detail.includes(`exchange_tx_id ${r.exchangeTxId})`);
    }
    if (s.status !== 503) return true;
    return (JSON.parse(s.body) as { code: string }).code !== 'service_unavailable' || s.headers['retry-after'] !== '1';
  });
  expect(
    wrong.slice(0, 5).map((s) => `${s.request.method} ${s.request.path}: ${s.status} ${s.error ?? s.body} retry-after=${s.headers['retry-after']}`),
  ).toEqual([]);
}

/** Orders sealed twice (a retried authorize must be answered with the original trace, never a second one). */
async function duplicateOrders(): Promise<string[]> {
  const rows = await store.admin<Array<{ client_order_id: string }>>`
    select client_order_id from traces group by agent_id, client_order_id having count(*) > 1`;
  return rows.map((r) => r.client_order_id);
}

function slowest(samples: Array<Sample<RequestSpec>>): number {
  return Math.max(...samples.map((s) => s.ms));
}

/** How long after the store was back the last 503 was answered (negative: none after it came back). */
function lastUnavailableAfter(samples: Array<Sample<RequestSpec>>, backAt: number): number {
  return Math.max(-1, ...samples.filter((s) => s.status === 503).map((s) => s.answeredAt - backAt));
}

describe('a store outage under load', () => {
  it('a statement past STORE_STATEMENT_TIMEOUT_MS is cancelled and answered 503, and the engine goes on', async () => {
    // An operator's long transaction holds every token: each request's token lookup waits behind it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const tx = store.admin.begin(async (t) => {
      await t`lock table engine_tokens in access exclusive mode`;
      locked();
      await held;
    });
    await isLocked;
    await sleep(300); // past the token cache's lifetime (ENGINE_STATE_REFRESH_MS)
    const blocked = await Promise.all(agents.slice(0, 4).map((a) => client.send(authorizeRequest(settings, a, regime))));
    release();
    await tx;
    for (const a of blocked) {
      expect(a.status, a.body).toBe(503);
      expect(a.headers['retry-after']).toBe('1');
      expect(JSON.parse(a.body)).toMatchObject({ code: 'service_unavailable' });
      // Cancelled by the statement timeout (2 s), well before the request deadline.
      expect(a.ms).toBeLessThan(DEADLINE_MS);
    }
    const after = await client.send(authorizeRequest(settings, agents[0]!, regime));
    expect(after.status, after.body).toBe(200);
    expect(server.log()).toMatch(/"level":40,[^\n]*canceling statement due to statement timeout/);
  }, 60_000);

  it('Postgres stopped for 5 s: only 503s meanwhile, every request answered within seconds, 200s again at once', async () => {
    let stoppedAt = 0;
    const { samples, backAt } = await underLoad(async () => {
      await store.cluster.halt('fast');
      stoppedAt = Date.now();
      await sleep(5000);
      await store.cluster.resume();
      return Date.now();
    });
    expectOnlyOkOrUnavailable(samples);
    expect(samples.filter((s) => s.status === 503).length).toBeGreaterThan(0);
    // Without the store's timeouts and a bounded reconnect, requests waited 17-20 s and 5xx went on 12-14 s.
    expect(slowest(samples)).toBeLessThan(10_000);
    expect(lastUnavailableAfter(samples, backAt)).toBeLessThan(3000);
    expect(samples.filter((s) => s.status === 200 && s.sentAt > backAt).length).toBeGreaterThan(0);
    expect(samples.filter((s) => s.status === 200 && s.sentAt > stoppedAt + 500 && s.answeredAt < backAt - 500)).toEqual([]);
    expect(await ledger.missing(store.admin)).toEqual([]);
    expect(await duplicateOrders()).toEqual([]);
  }, 120_000);

  it('Postgres frozen for 10 s (no answer, no closed connection): 503 at the request deadline, 200s again at once', async () => {
    const { samples, backAt } = await underLoad(async () => {
      const thaw = await freeze(store.cluster);
      try {
        await sleep(10_000);
      } finally {
        await thaw();
      }
      return Date.now();
    });
    expectOnlyOkOrUnavailable(samples);
    expect(samples.filter((s) => s.status === 503).length).toBeGreaterThan(0);
    // Each request is answered by its deadline (4 s), not when the store wakes up (10 s): no 200 comes so late
    // that the client's own timeout could have retried the order meanwhile.
    expect(slowest(samples)).toBeLessThan(DEADLINE_MS + 4000);
    expect(lastUnavailableAfter(samples, backAt)).toBeLessThan(DEADLINE_MS + 3000);
    expect(samples.filter((s) => s.status === 200 && s.sentAt > backAt).length).toBeGreaterThan(0);
    expect(await ledger.missing(store.admin)).toEqual([]);
    expect(await duplicateOrders()).toEqual([]);
  }, 120_000);

  it('logs each 503 at warn under its request id, and nothing at error: an outage is not a bug', () => {
    const lines = server
      .log()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string; reqId?: string });
    const failed = lines.filter((l) => l.msg === 'request failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.filter((l) => l.level !== 40 || !l.reqId)).toEqual([]);
    // Background jobs (sweeper, transparency log sequencer, webhook worker) too: they retry at their next tick.
    expect(lines.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([]);
  });
});
