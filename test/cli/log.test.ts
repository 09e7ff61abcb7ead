/**
 * `tradeseal engine log key|head|verify` against a real server (`startServer`: HTTP on a port, with its
 * sequencer), reading the local store by default and the server with `--url`/`--token`. `verify` trusts only
 * the public key it is given: exit 0 when the trace is proven in the log, 5 naming the failed checks, 3 for a
 * trace not yet logged, 2 for bad input.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { generateKeyPair } from '../../src/core/crypto/ed25519.js';
import { verifyTreeHeadSignature } from '../../src/core/log/tree-head.js';
import { bootstrapOwnerToken } from '../../src/engine/store/tokens.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { testStore, type TestStore } from '../helpers/db.js';

const MODEL_HASH = 'a'.repeat(64);
const home = tempHome();
let store: TestStore;
let server: RunningServer;
let env: CliEnv;
let owner: string;
let client: { agent_id: string; token: string };
let auditor: string;
const t = { bound: '', unbound: '', rewritten: '' };

async function call(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: await res.json() };
}

async function authorize(): Promise<string> {
  const res = await call('POST', '/engine/authorize', client.token, {
    agent_id: client.agent_id,
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
  });
  if (res.status !== 200) throw new Error(`authorize: ${JSON.stringify(res.json)}`);
  return res.json.trace_id;
}

/** Waits until the server's sequencer has logged every queued leaf. */
async function logged(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const [row] = await store.sql<Array<{ n: number }>>`select count(*)::int as n from log_queue`;
    if (row?.n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the sequencer did not drain the queue');
}

beforeAll(async () => {
  store = await testStore();
  server = await startServer(configWith({ databaseUrl: store.url, logLevel: 'silent', port: 0 }), { services: ['engine'] });
  env = cliEnv(home, store.url);
  owner = (await bootstrapOwnerToken(store.sql))!.token;
  const agent = await call('POST', '/engine/admin/agents', owner, {
    name: 'momentum-1',
    max_notional: 200_000,
    models: [{ model_id: 'alpha-7', model_hash_hex: MODEL_HASH }],
  });
  const token = await call('POST', '/engine/admin/tokens', owner, { client_name: 'momentum-1', agent_ids: [agent.json.agent_id] });
  client = { agent_id: agent.json.agent_id, token: token.json.token };
  auditor = (await call('POST', '/engine/admin/tokens', owner, { client_name: 'audit', role: 'auditor' })).json.token;
  expect((await call('POST', '/engine/admin/regime', owner, { regime: 'expansion', risk_score: 0.2, reason: 'test' })).status).toBe(201);
  t.bound = await authorize();
  const bind = await call('POST', '/engine/bind-execution', client.token, {
    trace_id: t.bound,
    exchange_tx_id: 'XNAS-1',
    execution_status: 'Filled',
    asset: 'AAPL',
    executed_quantity: 100,
    executed_side: 'Long',
  });
  expect(bind.status).toBe(200);
  t.unbound = await authorize();
  t.rewritten = await authorize();
  await logged();
}, 120_000);
afterAll(async () => {
  await server?.close();
  await store?.close();
});

describe('engine log', () => {
  it('key prints the public key and key_id that verify the heads head prints', async () => {
    const [key, head] = await Promise.all([runCli(['engine', 'log', 'key', '--json'], env), runCli(['engine', 'log', 'head', '--json'], env)]);
    expect(key.code, describeRun(key)).toBe(0);
    expect(head.code, describeRun(head)).toBe(0);
    const k = key.json();
    expect(k).toMatchObject({ algorithm: 'Ed25519', source: 'store', key_id: head.json().key_id });
    expect(head.json().tree_size).toBe(4);
    expect(verifyTreeHeadSignature(head.json(), new Uint8Array(Buffer.from(k.public_key.hex, 'hex')))).toEqual({ valid: true });
    const past = await runCli(['engine', 'log', 'head', '--tree-size', '1'], env);
    expect(past.code, describeRun(past)).toBe(0);
    expect(past.stdout).toMatch(/^tree_size {2}1$/m);
  }, 120_000);

  it("verify proves a bound trace's two leaves under the signed head with the key given, locally and from the server", async () => {
    const hex = (await runCli(['engine', 'log', 'key', '--json'], env)).json().public_key.hex as string;
    const [here, there] = await Promise.all([
      runCli(['engine', 'log', 'verify', t.bound, '--public-key', hex, '--json'], env),
      runCli(
        ['engine', 'log', 'verify', t.bound, '--public-key', hex, '--url', server.url, '--token', auditor, '--json'],
        cliEnv(home, 'postgres://nobody@127.0.0.1:1/none'),
      ),
    ]);
    // The same server named by a profile (`tradeseal config set`), and by ENGINE_URL / ENGINE_TOKEN.
    const profiles = { TRADESEAL_PROFILES_FILE: path.join(home, 'profiles.json') };
    const set = await runCli(['config', 'set', '--profile', 'audit', '--url', server.url, '--token', auditor], cliEnv(home, undefined, profiles));
    expect(set.code, describeRun(set)).toBe(0);
    const [byProfile, byEnv] = await Promise.all([
      runCli(
        ['engine', 'log', 'verify', t.bound, '--public-key', hex, '--profile', 'audit', '--json'],
        cliEnv(home, 'postgres://nobody@127.0.0.1:1/none', profiles),
      ),
      runCli(
        ['engine', 'log', 'verify', t.bound, '--public-key', hex, '--json'],
        cliEnv(home, 'postgres://nobody@127.0.0.1:1/none', { ENGINE_URL: server.url, ENGINE_TOKEN: auditor }),
      ),
    ]);
    for (const run of [here, there, byProfile, byEnv]) {
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.json()).toMatchObject({ valid: true, trace_id: t.bound, tree_size: 4 });
      expect(run.json().checks.map((c: { check: string; status: string }) => `${c.check}:${c.status}`)).toEqual([
        'key_id:pass',
        'signature:pass',
        'tree_size:pass',
        'reasoning_hash:pass',
        'inclusion:pass',
        'final_proof:pass',
        'final_proof_inclusion:pass',
      ]);
    }
    const text = await runCli(['engine', 'log', 'verify', t.unbound], env);
    expect(text.code, describeRun(text)).toBe(0);
    expect(text.stdout).toContain("the log's own key, read from this store");
    expect(text.stdout).toMatch(/- final_proof: the trace is not bound/);
    expect(text.stdout).toContain(`trace ${t.unbound} is in the log`);
  }, 120_000);

  it('verify exits 5 naming the failed checks: another key, or a trace rewritten after it was logged', async () => {
    const other = Buffer.from(generateKeyPair().publicKey).toString('hex');
    const wrongKey = await runCli(['engine', 'log', 'verify', t.bound, '--public-key', other], env);
    expect(wrongKey.code, describeRun(wrongKey)).toBe(5);
    expect(wrongKey.stdout).toMatch(/✗ key_id/);
    expect(wrongKey.stdout).toMatch(/✗ signature/);
    expect(wrongKey.stdout).toContain('key_id, signature failed');

    await store.sql`update traces set reasoning_hash = ${'0'.repeat(64)} where trace_id = ${t.rewritten}`;
    const rewritten = await runCli(['engine', 'log', 'verify', t.rewritten, '--json'], env);
    expect(rewritten.code, describeRun(rewritten)).toBe(5);
    expect(rewritten.json().valid).toBe(false);
    expect(
      rewritten
        .json()
        .checks.filter((c: { status: string }) => c.status === 'fail')
        .map((c: { check: string }) => c.check),
    ).toEqual(['reasoning_hash']);
  }, 120_000);

  it('refuses what it cannot check: unknown or unlogged traces (3), bad input (2), a remote engine without a key or a token (2)', async () => {
    await server.close();
    // With no server, nothing sequences the new trace.
    const unlogged = randomUUID();
    await store.sql`insert into traces (trace_id, txn_time, agent_id, client_order_id, status, verification_status, action, asset, quantity, notional,
                                        notional_currency, reasoning_hash, sealed, policy_result)
                    values (${unlogged}, now(), ${client.agent_id}, 'unlogged', 'PENDING', 'Pending', 'Long', 'AAPL', 1, 1, 'USD', ${'ab'.repeat(32)}, '{}', 'PASS')`;
    const runs = await Promise.all([
      runCli(['engine', 'log', 'verify', unlogged, '--json'], env),
      runCli(['engine', 'log', 'verify', randomUUID(), '--json'], env),
      runCli(['engine', 'log', 'verify', 'not-a-uuid', '--json'], env),
      runCli(['engine', 'log', 'verify', t.bound, '--public-key', 'abc', '--json'], env),
      runCli(['engine', 'log', 'verify', t.bound, '--url', 'http://127.0.0.1:1', '--token', auditor, '--json'], env),
      runCli(['engine', 'log', 'verify', t.bound, '--url', 'http://127.0.0.1:1', '--json'], env),
      runCli(['engine', 'log', 'head', '--tree-size', '99', '--json'], env),
    ]);
    expect(runs.map((r) => [r.code, r.json().error?.code])).toEqual([
      [3, 'not_yet_logged'],
      [3, 'not_found'],
      [2, 'validation_failed'],
      [2, 'validation_failed'],
      [2, 'usage_error'],
      [2, 'usage_error'],
      [2, 'validation_failed'],
    ]);
    expect(runs[2]!.json().error.errors[0].field).toBe('TRACE_ID');
    expect(runs[3]!.json().error.errors[0].field).toBe('--public-key');
    expect(runs[6]!.json().error.errors[0].field).toBe('tree_size');
  }, 180_000);
});
