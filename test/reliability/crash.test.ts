/**
 * Guarantee: an answer is a promise kept. The server is killed with SIGKILL in the middle of authorize and bind
 * load; every authorize it answered 200 is a sealed trace in the store with the reasoning_hash it answered,
 * every bind it answered 200 is bound with the exchange_tx_id and final_proof it answered, and a restarted
 * server answers a retry of any order (answered or cut off) with one trace per client_order_id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { privateStore, type PrivateStore } from './support/cluster.js';
import {
  authorizeRequest,
  bearer,
  bindRequest,
  engineSettings,
  Ledger,
  publishRegime,
  registerAgent,
  type Agent,
  type AuthorizeSpec,
  type BindSpec,
  type EngineSettings,
  type Regime,
} from './support/engine.js';
import { Client, runLoad, type Sample } from './support/http.js';
import { startServerProcess, type ServerProcess } from './support/server.js';
import { removeTempDirs } from './support/temp.js';

const WORKERS = 8;

let store: PrivateStore;
let settings: EngineSettings;
let server: ServerProcess | undefined;
let restarted: ServerProcess | undefined;

beforeAll(async () => {
  store = await privateStore();
  settings = await engineSettings(store.url);
  server = await startServerProcess(settings.env, 'crash');
}, 180_000);
afterAll(async () => {
  await server?.kill();
  await restarted?.kill();
  await store?.close();
  await removeTempDirs();
});

describe('SIGKILL of the server under authorize and bind load', () => {
  it('loses no acknowledged trace or bind, and a restarted server answers retries without duplicates', async () => {
    const client = new Client(server!.url, WORKERS);
    const regime: Regime = await publishRegime(client, settings.ownerToken);
    const agents: Agent[] = [];
    for (let i = 0; i < WORKERS; i++) agents.push(await registerAgent(client, settings.ownerToken));

    // Each worker authorizes an order, binds the trace it got, and again.
    const toBind: Array<{ agent: Agent; traceId: string } | null> = agents.map(() => null);
    const ledger = new Ledger();
    const cutOff: AuthorizeSpec[] = [];
    let killedAt = Number.POSITIVE_INFINITY;
    let lastAnswerAfterKill = 0;
    const load = runLoad<AuthorizeSpec | BindSpec>(client, {
      workers: WORKERS,
      next: (w) => {
        const pending = toBind[w];
        return pending ? bindRequest(pending.agent, pending.traceId) : authorizeRequest(settings, agents[w]!, regime);
      },
      // After the kill, each worker keeps trying until the server has been gone for a second.
      stop: () => Date.now() - Math.max(killedAt, lastAnswerAfterKill) > 1000,
      onAnswer: (s: Sample<AuthorizeSpec | BindSpec>) => {
        if (s.answeredAt > killedAt && s.status !== 0) lastAnswerAfterKill = Date.now();
        const r = s.request;
        const sealed = ledger.record(r, s.status, s.body);
        if (r.kind === 'authorize') {
          if (sealed) toBind[s.worker] = { agent: r.agent, traceId: sealed };
          // In flight when the server died: it may or may not have been sealed.
          else if (s.status === 0 && s.sentAt < killedAt) cutOff.push(r);
        } else if (s.status === 200) {
          toBind[s.worker] = null;
        }
      },
    });
    // Kill once the load has run a while (and at least 100 answers are in), mid-flight.
    const started = Date.now();
    while (ledger.authorized.size + ledger.bound.size < 100 || Date.now() - started < 3000) {
      if (Date.now() - started > 60_000) throw new Error(`only ${ledger.authorized.size} authorizations in 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await server!.kill();
    killedAt = Date.now();
    const samples = await load;
    client.close();

    // Before the kill every answer was a 200 (authorize and bind both pass for these agents).
    const beforeKill = samples.filter((s) => s.answeredAt < killedAt && s.status !== 0);
    expect(beforeKill.filter((s) => s.status !== 200).map((s) => `${s.status} ${s.body}`)).toEqual([]);
    expect(ledger.authorized.size).toBeGreaterThan(20);
    expect(ledger.bound.size).toBeGreaterThan(10);
    expect(new Set(cutOff.map((r) => r.agent.agentId)).size).toBe(cutOff.length);

    // Every acknowledged trace and bind is in the store, as answered.
    expect(await ledger.missing(store.admin)).toEqual([]);

    // A new server on the same store: retries of answered orders get the original answer; retries of orders
    // cut off by the kill (one per agent at most) are sealed now, or answered as the original if it committed;
    // never two traces for one client_order_id.
    restarted = await startServerProcess(settings.env, 'crash-restarted');
    const again = new Client(restarted.url, 8);
    const retries = [...[...ledger.authorized.values()].slice(0, 20).map((a) => a.spec), ...cutOff];
    const answers = await Promise.all(retries.map((spec) => again.send(spec)));
    answers.forEach((a, i) => {
      const spec = retries[i]!;
      expect(a.status, `${spec.clientOrderId}: ${a.body}`).toBe(200);
      const original = ledger.authorized.get(spec.clientOrderId);
      if (original) expect(JSON.parse(a.body)).toMatchObject({ trace_id: original.traceId, reasoning_hash: original.reasoningHash });
    });
    const [dupes] = await store.admin<Array<{ n: number }>>`
      select count(*)::int as n from (select agent_id, client_order_id from traces group by 1, 2 having count(*) > 1) d`;
    expect(dupes?.n).toBe(0);
    // And what it answers verifies: a bound trace's proofs recompute.
    const [someBound] = ledger.bound.keys();
    const verify = await again.json<{ valid: boolean }>(
      { method: 'GET', path: `/engine/trace/${someBound}/verify`, headers: bearer(settings.ownerToken) },
      200,
    );
    expect(verify.valid).toBe(true);
    again.close();
  }, 180_000);
});
