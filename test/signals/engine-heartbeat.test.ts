/**
 * `GET /v1/engine/heartbeat` end to end, over real HTTP: two servers (both services, Layer 2 on) share one
 * store, one signing heartbeats as `ed25519`, the other as `ed25519-jcs`; the engine's REGIME_OPERATOR_PUBKEY
 * is the signal service's stored key (src/signals/signing-key.ts). A heartbeat fetched from the signal
 * service authorizes an order on the engine once, and is refused as replayed the second time, in both
 * schemes; sequence ids strictly increase for two concurrent requesters on two servers; only engine tier
 * keys get heartbeats; with nothing broadcast the answer is 503 `pipeline_lag`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { heartbeatSignatureValid } from '../../src/engine/heartbeat/check.js';
import type { SignatureScheme } from '../../src/core/records/heartbeat.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { loadSigningKey } from '../../src/signals/signing-key.js';
import { issueKey } from '../../src/signals/store/keys.js';
import type { Tier } from '../../src/signals/tiers.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { servedChecker } from '../helpers/documented.js';

const MODEL_HASH = 'b'.repeat(64);
const OWNER = `tse_${randomBytes(32).toString('base64url')}`;

let store: TestStore;
let publicKey: Uint8Array;
const servers: Partial<Record<SignatureScheme, RunningServer>> = {};
const keys: Partial<Record<Tier, string>> = {};

async function serve(scheme: SignatureScheme): Promise<RunningServer> {
  const config = configWith({
    databaseUrl: store.url,
    logLevel: 'silent',
    port: 0,
    host: '127.0.0.1',
    engineOwnerToken: OWNER,
    layer2Enabled: true,
    heartbeatRequireMtaRef: true,
    regimeOperatorPubkey: publicKey,
    heartbeatSignatureScheme: scheme,
  });
  return startServer(config);
}

async function account(tier: Tier, agentCount = 0): Promise<string> {
  const id = randomUUID();
  await store.sql`insert into signal_accounts (account_id, email, tier, agent_count) values (${id}, ${`${id}@example.test`}, ${tier}, ${agentCount})`;
  return (await issueKey(store.sql, id)).api_key;
}

async function call(
  server: RunningServer,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; key?: string } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.key) headers['x-signals-key'] = options.key;
  const res = await fetch(`${server.url}${path}`, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
  const text = await res.text();
  (await servedChecker(server.url)).check({ method, url: path, statusCode: res.status, headers: Object.fromEntries(res.headers), body: text });
  return { status: res.status, body: JSON.parse(text) };
}

const heartbeat = (server: RunningServer, key = keys.engine_sidecar!) => call(server, 'GET', '/v1/engine/heartbeat', { key });

beforeAll(async () => {
  store = await testStore({ max: 4 });
  // The engine is configured with the signal service's public key, read through the same module the server uses.
  publicKey = (await loadSigningKey(store.sql, { regimeSigningKey: null })).publicKey;
  servers.ed25519 = await serve('ed25519');
  for (const tier of ['engine_sidecar', 'engine_audit', 'owner', 'pro'] as const) keys[tier] = await account(tier, tier === 'engine_audit' ? 3 : 0);
});

afterAll(async () => {
  for (const s of Object.values(servers)) await s?.close();
  await store?.close();
});

describe('before any regime is broadcast', () => {
  it('answers 503 pipeline_lag, and draws no sequence id', async () => {
    const res = await heartbeat(servers.ed25519!);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'pipeline_lag', detail: 'no regime broadcast is published yet: there is nothing to sign' });
    const [seq] = await store.sql`select is_called from heartbeat_sequence_id`;
    expect(seq!.is_called).toBe(false);
  });

  it('the audit decomposition answers 503 pipeline_lag too', async () => {
    const res = await call(servers.ed25519!, 'GET', '/v1/engine/audit', { key: keys.engine_audit! });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('pipeline_lag');
  });
});

describe('GET /v1/engine/heartbeat: a signed heartbeat from the signal service authorizes once on the engine', () => {
  let regime: { hash: string; regime_id: number };
  beforeAll(async () => {
    const res = await call(servers.ed25519!, 'POST', '/engine/admin/regime', { token: OWNER, body: { regime: 'recovery', risk_score: 0.3, reason: 'test' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    regime = { hash: res.body.hash, regime_id: res.body.regime_id };
    // The second server starts after the broadcast, so its engine state holds it from the start.
    servers['ed25519-jcs'] = await serve('ed25519-jcs');
  });

  async function agent(server: RunningServer): Promise<{ agent_id: string; token: string }> {
    const reg = await call(server, 'POST', '/engine/admin/agents', {
      token: OWNER,
      body: { name: `agent-${randomUUID().slice(0, 8)}`, max_notional: 200_000, models: [{ model_id: 'alpha-7', model_hash_hex: MODEL_HASH }] },
    });
    expect(reg.status, JSON.stringify(reg.body)).toBe(201);
    const tok = await call(server, 'POST', '/engine/admin/tokens', { token: OWNER, body: { client_name: 'agent', agent_ids: [reg.body.agent_id] } });
    return { agent_id: reg.body.agent_id, token: tok.body.token };
  }

  const order = (agentId: string, hb: unknown) => ({
    agent_id: agentId,
    model_hash_hex: MODEL_HASH,
    model_id: 'alpha-7',
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
    heartbeat: hb,
  });

  it.each(['ed25519', 'ed25519-jcs'] as const)('%s: 200 with the fetched heartbeat, 403 heartbeat_replayed with it again', async (scheme) => {
    const server = servers[scheme]!;
    const before = Date.now();
    const fetched = await heartbeat(server);
    expect(fetched.status, JSON.stringify(fetched.body)).toBe(200);
    const hb = fetched.body;
    expect(Object.keys(hb).sort()).toEqual(['mta_ref', 'regime_id', 'sequence_id', 'signature', 'timestamp_ms']);
    expect(hb).toMatchObject({ regime_id: regime.regime_id, mta_ref: regime.hash });
    expect(hb.signature.startsWith(`${scheme}:`)).toBe(true);
    expect(hb.timestamp_ms).toBeGreaterThanOrEqual(before);
    expect(hb.timestamp_ms).toBeLessThanOrEqual(Date.now());
    expect(await heartbeatSignatureValid(hb, publicKey)).toBe(true);

    const { agent_id, token } = await agent(server);
    const first = await call(server, 'POST', '/engine/authorize', { token, body: order(agent_id, hb) });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.authorized).toBe(true);
    const trace = await call(server, 'GET', `/engine/trace/${first.body.trace_id}`, { token });
    expect(trace.body.heartbeat).toMatchObject({ sequence_id: hb.sequence_id, signature_valid: true });

    const again = await call(server, 'POST', '/engine/authorize', { token, body: order(agent_id, hb) });
    expect(again.status).toBe(403);
    expect(again.body.code).toBe('heartbeat_replayed');

    // The next heartbeat passes again.
    const next = await heartbeat(server);
    expect(next.body.sequence_id).toBeGreaterThan(hb.sequence_id);
    expect((await call(server, 'POST', '/engine/authorize', { token, body: order(agent_id, next.body) })).status).toBe(200);
  });

  it('sequence ids strictly increase for two concurrent requesters on two servers', async () => {
    const requester = async (server: RunningServer, key: string): Promise<number[]> => {
      const ids: number[] = [];
      for (let i = 0; i < 25; i++) {
        const res = await heartbeat(server, key);
        expect(res.status).toBe(200);
        ids.push(res.body.sequence_id);
      }
      return ids;
    };
    const [a, b] = await Promise.all([requester(servers.ed25519!, keys.engine_sidecar!), requester(servers['ed25519-jcs']!, keys.owner!)]);
    for (const ids of [a, b]) for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1]!);
    expect(new Set([...a, ...b]).size).toBe(50);
    const after = await heartbeat(servers.ed25519!, keys.engine_audit!);
    expect(after.body.sequence_id).toBeGreaterThan(Math.max(...a, ...b));
  });
});

describe('a burst of concurrent requests on one server (they share draw statements)', () => {
  it('gives each request its own sequence id and a valid signature', async () => {
    const burst = await Promise.all(Array.from({ length: 100 }, () => heartbeat(servers['ed25519-jcs']!)));
    expect(burst.every((r) => r.status === 200)).toBe(true);
    expect(new Set(burst.map((r) => r.body.sequence_id)).size).toBe(100);
    for (const { body } of burst) expect(await heartbeatSignatureValid(body, publicKey)).toBe(true);
  });
});

describe('who may fetch heartbeats', () => {
  it('403 tier_insufficient for a key outside the engine tiers', async () => {
    const res = await heartbeat(servers.ed25519!, keys.pro!);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('tier_insufficient');
  });

  it("a revoked engine key is refused within ENGINE_STATE_REFRESH_MS (the admission cache's lifetime)", async () => {
    const key = await account('engine_sidecar');
    expect((await heartbeat(servers.ed25519!, key)).status).toBe(200);
    await store.sql`update signal_keys set revoked_at = now() where key_hash = encode(sha256(${key}::bytea), 'hex')`;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const res = await heartbeat(servers.ed25519!, key);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('key_revoked');
  });

  it('401 without a key', async () => {
    const res = await call(servers.ed25519!, 'GET', '/v1/engine/heartbeat');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });

  it('is in the OpenAPI document with its operationId, tag and security', async () => {
    const doc = (await call(servers.ed25519!, 'GET', '/openapi.json')).body;
    for (const [path, id] of [
      ['/v1/engine/heartbeat', 'getEngineHeartbeat'],
      ['/v1/engine/audit', 'getEngineAudit'],
    ] as const) {
      expect(doc.paths[path].get).toMatchObject({ operationId: id, tags: ['signals engine'], security: [{ signalsKey: [] }] });
    }
  });
});
