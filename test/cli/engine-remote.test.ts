/**
 * The engine's operator commands against a remote engine (`--url` and `--token`, over real HTTP): reads answer
 * what the same commands answer on the local store, admin changes go through the API (recorded with the
 * token's name as actor), and the engine's refusals keep their code and exit code.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { bootstrapOwnerToken } from '../../src/engine/store/tokens.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { MODEL_HASH } from '../helpers/engine.js';

const home = tempHome();
let store: TestStore;
let server: RunningServer;
let local: CliEnv;
/** No store reachable: every answer must come over HTTP. */
let nowhere: CliEnv;
let owner: string;
let agentId = '';
let traceId = '';

async function call(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: await res.json() };
}

beforeAll(async () => {
  store = await testStore();
  server = await startServer(configWith({ databaseUrl: store.url, logLevel: 'silent', port: 0 }), { services: ['engine'] });
  local = cliEnv(home, store.url);
  nowhere = cliEnv(home, 'postgres://nobody@127.0.0.1:1/none');
  owner = (await bootstrapOwnerToken(store.sql))!.token;
  expect((await call('POST', '/engine/admin/regime', owner, { regime: 'expansion', risk_score: 0.2, reason: 'test' })).status).toBe(201);
}, 120_000);
afterAll(async () => {
  await server?.close();
  await store?.close();
});

const remote = (): string[] => ['--url', server.url, '--token', owner];

describe('engine commands against a remote engine', () => {
  it('register an agent, issue its token, and read agents, tokens, traces, shadow mode and the regime as the local store does', async () => {
    const registered = await runCli(
      ['engine', 'agents', 'register', '--name', 'remote-1', '--max-notional', '200000', '--model', `alpha-7:${MODEL_HASH}`, ...remote(), '--json'],
      nowhere,
    );
    expect(registered.code, describeRun(registered)).toBe(0);
    agentId = registered.json().agent_id;
    const issued = await runCli(['engine', 'tokens', 'issue', '--client-name', 'remote-1', '--agent-id', agentId, ...remote(), '--json'], nowhere);
    expect(issued.code, describeRun(issued)).toBe(0);
    const order = {
      agent_id: agentId,
      model_id: 'alpha-7',
      model_hash_hex: MODEL_HASH,
      prompt_version: 'p-3',
      feature_schema_id: 'fs-1',
      hyperparameter_checksum: 'h-9',
      action: 'Long',
      asset: 'AAPL',
      order_type: 'Limit',
      venue_id: 'XNAS',
      quantity: 100,
      limit_price: 190,
      notional: 19_000,
      client_order_id: randomUUID(),
      agent_valid_time: Date.now(),
    };
    const authorized = await call('POST', '/engine/authorize', issued.json().token, order);
    expect(authorized.status, JSON.stringify(authorized.json)).toBe(200);
    traceId = authorized.json.trace_id;

    for (const args of [
      ['engine', 'agents', 'list'],
      ['engine', 'tokens', 'list'],
      ['engine', 'traces', 'list'],
      ['engine', 'traces', 'show', traceId],
      ['engine', 'traces', 'verify', traceId],
      ['engine', 'pending', '--age-seconds', '0'],
      ['engine', 'orphans'],
      ['engine', 'shadow', 'status'],
      ['engine', 'audit-log', '--limit', '5'],
    ]) {
      const [there, here] = await Promise.all([runCli([...args, ...remote(), '--json'], nowhere), runCli([...args, '--json'], local)]);
      expect(there.code, describeRun(there)).toBe(0);
      expect(here.code, describeRun(here)).toBe(0);
      expect(there.json(), args.join(' ')).toEqual(here.json());
    }
    // The text views render a remote answer as they render a local one.
    const [listThere, listHere] = await Promise.all([runCli(['engine', 'agents', 'list', ...remote()], nowhere), runCli(['engine', 'agents', 'list'], local)]);
    expect(listThere.stdout).toBe(listHere.stdout);
    // The policy in force there (GET /engine/policy): the file's policy here, but for the file's name.
    const [policyThere, policyHere] = await Promise.all([
      runCli(['engine', 'policy', 'show', ...remote(), '--json'], nowhere),
      runCli(['engine', 'policy', 'show', '--json'], local),
    ]);
    expect(policyThere.code, describeRun(policyThere)).toBe(0);
    expect(policyThere.json()).toEqual({ ...policyHere.json(), file: null });
    const regime = await runCli(['regime', 'show', ...remote(), '--json'], nowhere);
    expect(regime.code, describeRun(regime)).toBe(0);
    expect(regime.json()).toMatchObject({ regime: 'expansion', source: 'manual' });
  }, 120_000);

  it('admin changes go through the API and are audited under the token; refusals keep their code and exit code', async () => {
    const suspended = await runCli(
      ['engine', 'agents', 'status', agentId, '--status', 'Suspended', '--reason', 'remote check', ...remote(), '--json'],
      nowhere,
    );
    expect(suspended.code, describeRun(suspended)).toBe(0);
    expect(suspended.json()).toMatchObject({ agent_id: agentId, status: 'Suspended' });
    const shadow = await runCli(['engine', 'shadow', 'on', '--reason', 'dry run', ...remote(), '--json'], nowhere);
    expect(shadow.code, describeRun(shadow)).toBe(0);
    expect(shadow.json()).toMatchObject({ enabled: true, reason: 'dry run' });
    const [audit] = await store.sql<Array<{ actor: string }>>`select actor from audit_log where action like 'shadow%' order by id desc limit 1`;
    expect(audit?.actor).toMatch(/^token:[0-9a-f-]{36} \(/);

    const [unknown, badToken, noToken, prefix] = await Promise.all([
      runCli(['engine', 'traces', 'show', randomUUID(), ...remote(), '--json'], nowhere),
      runCli(['engine', 'agents', 'list', '--url', server.url, '--token', 'tse_wrong', '--json'], nowhere),
      runCli(['engine', 'agents', 'list', '--url', server.url, '--json'], nowhere),
      runCli(['engine', 'traces', 'show', traceId.slice(0, 8), ...remote(), '--json'], nowhere),
    ]);
    expect(unknown.code, describeRun(unknown)).toBe(3);
    expect(unknown.json()).toMatchObject({ error: { code: 'not_found' } });
    expect(badToken.code, describeRun(badToken)).toBe(5);
    expect(badToken.json()).toMatchObject({ error: { code: 'unauthorized' } });
    expect(noToken.code, describeRun(noToken)).toBe(2);
    expect(prefix.code, describeRun(prefix)).toBe(2); // a remote engine takes whole ids
    expect(prefix.json().error.hint).toBe('give a whole trace id (a UUID): a remote engine takes no prefixes');
  }, 120_000);
});
