/**
 * `tradeseal serve --workers 2` (a real process, a scratch database): a change of credentials made through
 * one worker holds on both before it is answered. Each round caches the credential on both workers first
 * (answers from both pids in `X-Served-By`), makes the change through the port, and the moment the answer
 * arrives hammers the port until both workers have answered: none accepts what the change took away. The
 * workers re-check the store only every ENGINE_STATE_REFRESH_MS, set to its longest (1 s) here, so a worker
 * that was not told would go on accepting for up to a second.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAccountKey } from '../../src/signals/ops/keys.js';
import { testDbInfo, testStore, type TestStore } from '../helpers/db.js';
import { authorizeRequest, bearer, engineSettings, publishRegime, registerAgent, type EngineSettings } from '../reliability/support/engine.js';
import { Client, type Answer, type RequestSpec } from '../reliability/support/http.js';
import { startServerProcess, type ServerProcess } from '../reliability/support/server.js';
import { removeTempDirs } from '../reliability/support/temp.js';

const ROUNDS = 5;
const postgresOnly = testDbInfo().mode === 'postgres';

let store: TestStore;
let settings: EngineSettings;
let serve: ServerProcess;
let client: Client;

const code = (a: Answer): string | undefined => (a.body.startsWith('{') ? (JSON.parse(a.body) as { code?: string }).code : undefined);
const workers = (answers: Answer[]): Set<string> => new Set(answers.map((a) => String(a.headers['x-served-by'])));
const email = (): string => `workers-${randomUUID().slice(0, 8)}@example.test`;

/** Sends `spec` in parallel batches until both workers have answered (at least 16 answers). */
async function throughBoth(spec: () => RequestSpec): Promise<Answer[]> {
  const answers: Answer[] = [];
  const deadline = Date.now() + 15_000;
  while (workers(answers).size < 2 || answers.length < 16) {
    if (Date.now() > deadline) throw new Error(`only worker(s) ${[...workers(answers)].join(', ')} answered within 15 s`);
    answers.push(...(await Promise.all(Array.from({ length: 8 }, () => client.send(spec())))));
  }
  return answers;
}

const statuses = (answers: Answer[]): string[] => answers.map((a) => `${a.headers['x-served-by']}: ${a.status} ${code(a) ?? ''}`.trim());

beforeAll(async () => {
  if (!postgresOnly) return;
  store = await testStore();
  settings = await engineSettings(store.url, { env: { SERVE_WORKERS: '2', ENGINE_STATE_REFRESH_MS: '1000' } });
  serve = await startServerProcess(settings.env, 'workers-credentials');
  client = new Client(serve.url, 8);
}, 120_000);
afterAll(async () => {
  client?.close();
  await serve?.kill();
  await store?.close();
  await removeTempDirs();
});

describe.runIf(postgresOnly)('serve --workers 2: a change of credentials holds on both workers before it is answered', () => {
  it('an engine token revoked through one worker is refused by both as soon as the revocation is answered', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const issued = await client.json<{ token: string; token_id: string }>(
        { method: 'POST', path: '/engine/admin/tokens', headers: bearer(settings.ownerToken), body: { client_name: `auditor-${round}`, role: 'auditor' } },
        200,
      );
      const read = (): RequestSpec => ({ method: 'GET', path: '/engine/admin/audit-log?limit=1', headers: bearer(issued.token) });
      const before = await throughBoth(read);
      expect(statuses(before.filter((a) => a.status !== 200))).toEqual([]);
      const revoked = await client.send({ method: 'DELETE', path: `/engine/admin/tokens/${issued.token_id}`, headers: bearer(settings.ownerToken) });
      expect(revoked.status, revoked.body).toBe(200);
      const after = await throughBoth(read);
      expect(statuses(after.filter((a) => a.status !== 401)), `round ${round + 1}, revoked through worker ${revoked.headers['x-served-by']}`).toEqual([]);
    }
  }, 120_000);

  it('a key rotated through one worker is refused by both as soon as the new key is answered', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const key = (await issueAccountKey(store.sql, { email: email(), tier: 'pro' })).api_key;
      const read = (): RequestSpec => ({ method: 'GET', path: '/v1/account', headers: { 'x-signals-key': key } });
      expect(statuses((await throughBoth(read)).filter((a) => a.status !== 200))).toEqual([]);
      const rotated = await client.send({ method: 'POST', path: '/v1/auth/rotate', headers: { 'x-signals-key': key } });
      expect(rotated.status, rotated.body).toBe(200);
      const after = await throughBoth(read);
      expect(
        statuses(after.filter((a) => a.status !== 403 || code(a) !== 'key_revoked')),
        `round ${round + 1}, rotated through worker ${rotated.headers['x-served-by']}`,
      ).toEqual([]);
    }
  }, 120_000);

  it("a key revoked, and an account's tier lowered, by an operator through one worker are refused by both as soon as answered", async () => {
    const operator = (await issueAccountKey(store.sql, { email: email(), tier: 'owner' })).api_key;
    const asOperator = { 'x-signals-key': operator };
    for (let round = 0; round < ROUNDS; round++) {
      const revokedKey = await issueAccountKey(store.sql, { email: email(), tier: 'pro' });
      const read = (): RequestSpec => ({ method: 'GET', path: '/v1/account', headers: { 'x-signals-key': revokedKey.api_key } });
      expect(statuses((await throughBoth(read)).filter((a) => a.status !== 200))).toEqual([]);
      const revoked = await client.send({ method: 'POST', path: `/v1/admin/keys/${revokedKey.key_id}/revoke`, headers: asOperator });
      expect(revoked.status, revoked.body).toBe(200);
      expect(statuses((await throughBoth(read)).filter((a) => a.status !== 403 || code(a) !== 'key_revoked')), `round ${round + 1}: revoke`).toEqual([]);

      // An owner key whose account drops to pro: the operator route is refused at once by both workers.
      const lowered = await issueAccountKey(store.sql, { email: email(), tier: 'owner' });
      const admin = (): RequestSpec => ({
        method: 'GET',
        path: `/v1/admin/keys?email=${encodeURIComponent(lowered.email)}`,
        headers: { 'x-signals-key': lowered.api_key },
      });
      expect(statuses((await throughBoth(admin)).filter((a) => a.status !== 200))).toEqual([]);
      const changed = await client.send({ method: 'POST', path: '/v1/admin/tier', headers: asOperator, body: { key_id: lowered.key_id, tier: 'pro' } });
      expect(changed.status, changed.body).toBe(200);
      expect(statuses((await throughBoth(admin)).filter((a) => a.status !== 403 || code(a) !== 'tier_insufficient')), `round ${round + 1}: tier`).toEqual([]);
    }
  }, 120_000);

  it('a worker that cannot confirm (stopped) is waited out: the revocation is answered 2 × ENGINE_STATE_REFRESH_MS after it, with a warning, and the stopped worker refuses the token once it runs again', async () => {
    const issued = await client.json<{ token: string; token_id: string }>(
      { method: 'POST', path: '/engine/admin/tokens', headers: bearer(settings.ownerToken), body: { client_name: 'stopped', role: 'auditor' } },
      200,
    );
    const read = (): RequestSpec => ({ method: 'GET', path: '/engine/admin/audit-log?limit=1', headers: bearer(issued.token) });
    expect(statuses((await throughBoth(read)).filter((a) => a.status !== 200))).toEqual([]);
    // A connection of one worker (keep-alive), to revoke through while the other is stopped.
    let through: Client | null = null;
    let answering = '';
    for (let i = 0; i < 20 && !through; i++) {
      const c = new Client(serve.url, 1);
      const first = await c.send(read());
      if (i === 0) answering = String(first.headers['x-served-by']);
      if (String(first.headers['x-served-by']) === answering) through = c;
      else c.close();
    }
    const stopped = [...workers(await throughBoth(read))].map(Number).find((pid) => String(pid) !== answering)!;
    process.kill(stopped, 'SIGSTOP');
    try {
      const revoked = await through!.send({ method: 'DELETE', path: `/engine/admin/tokens/${issued.token_id}`, headers: bearer(settings.ownerToken) });
      expect(revoked.status, revoked.body).toBe(200);
      expect(revoked.headers['x-served-by']).toBe(answering);
      // The promise: not before the stopped worker's caches have given the token up by their own clock.
      expect(revoked.ms).toBeGreaterThanOrEqual(2 * 1000);
      expect(serve.log()).toContain(`worker ${stopped} did not confirm the credential change (engine_token) within 2000 ms`);
    } finally {
      process.kill(stopped, 'SIGCONT');
      through?.close();
    }
    const after = await throughBoth(read);
    expect(statuses(after.filter((a) => a.status !== 401))).toEqual([]);
  }, 60_000);

  it('an agent suspended through one worker is refused by both (its status is read from the store on every authorize)', async () => {
    const regime = await publishRegime(client, settings.ownerToken);
    const agent = await registerAgent(client, settings.ownerToken);
    /** Orders one after another (each heartbeat's sequence above the last), each on a new connection, until both workers answered. */
    const ordersThroughBoth = async (): Promise<Answer[]> => {
      const answers: Answer[] = [];
      while (workers(answers).size < 2 || answers.length < 4) {
        if (answers.length > 40) throw new Error(`only worker(s) ${[...workers(answers)].join(', ')} answered 40 orders`);
        const fresh = new Client(serve.url, 1);
        answers.push(await fresh.send(authorizeRequest(settings, agent, regime)));
        fresh.close();
      }
      return answers;
    };
    // The worker that did not take the broadcast serves it within ENGINE_STATE_REFRESH_MS: wait until both authorize.
    const deadline = Date.now() + 15_000;
    for (;;) {
      const answers = await ordersThroughBoth();
      if (answers.slice(-2).every((a) => a.status === 200) && workers(answers.slice(-2)).size === 2) break;
      if (Date.now() > deadline) throw new Error(`both workers did not authorize within 15 s:\n${statuses(answers).join('\n')}`);
    }
    const suspended = await client.send({
      method: 'PATCH',
      path: `/engine/admin/agents/${agent.agentId}/status`,
      headers: bearer(settings.ownerToken),
      body: { status: 'Suspended', reason: 'workers test' },
    });
    expect(suspended.status, suspended.body).toBe(200);
    const after = await ordersThroughBoth();
    expect(statuses(after.filter((a) => a.status !== 403 || code(a) !== 'agent_not_active'))).toEqual([]);
  }, 60_000);
});
