/**
 * Mutual TLS over real HTTPS: `startServer` with TLS_CERT, TLS_KEY and TLS_CLIENT_CA, certificates made at
 * test time by openssl, clients presenting them through node:https.
 * - the /engine routes need a client certificate of the configured CA (401 without one or with another);
 *   `/v1`, health and the API document do not;
 * - authorize and bind need the certificate's common name to be the agent (403 `mtls_cn_mismatch`),
 *   directly or through TLS_CN_MAP; the token is still required and still scoped.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, type Config } from '../../src/core/config.js';
import { newTokenSecret } from '../../src/engine/store/tokens.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { makeCa, type IssuedCertificate, type TestCa } from '../helpers/certificates.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { MODEL_HASH } from '../helpers/engine.js';
import { httpsRequest, type HttpsResponse } from '../helpers/https-client.js';

let dir: string;
let store: TestStore;
let ca: TestCa;
let server: RunningServer;
let config: Config;
const owner = newTokenSecret();
/** The operator's certificate for the admin routes: its common name is no agent's. */
let ops: IssuedCertificate;
const agents: Array<{ agent_id: string; token: string; cert: IssuedCertificate }> = [];

type Call = (cert: IssuedCertificate | null, method: string, url: string, body?: unknown, token?: string | null) => Promise<HttpsResponse>;

const caller =
  (running: () => RunningServer): Call =>
  (cert, method, url, body, token = owner) =>
    httpsRequest(
      `${running().url}${url}`,
      { ca: ca.cert, ...(cert ? { cert: cert.cert, key: cert.key } : {}) },
      {
        method,
        ...(body === undefined ? {} : { body }),
        ...(token ? { token } : {}),
      },
    );
const call = caller(() => server);

const order = (agentId: string): Record<string, unknown> => ({
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
});

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradeseal-mtls-'));
  ca = makeCa(dir, 'Desk Agents CA');
  const serverCert = ca.server('server');
  ops = ca.client('ops', 'ops-desk');
  store = await testStore();
  config = configWith({
    databaseUrl: store.url,
    logLevel: 'silent',
    engineOwnerToken: owner,
    port: 0,
    tlsCert: serverCert.certPath,
    tlsKey: serverCert.keyPath,
    tlsClientCa: ca.certPath,
  });
  server = await startServer(config);
  expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);

  const regime = await call(ops, 'POST', '/engine/admin/regime', { regime: 'expansion', risk_score: 0.2, reason: 'test' });
  expect(regime.status).toBe(201);
  for (const name of ['alpha', 'beta']) {
    const agent = await call(ops, 'POST', '/engine/admin/agents', {
      name,
      max_notional: 200_000,
      models: [{ model_id: 'alpha-7', model_hash_hex: MODEL_HASH }],
    });
    expect(agent.status).toBe(201);
    const agentId = agent.json().agent_id as string;
    const token = await call(ops, 'POST', '/engine/admin/tokens', { client_name: name, agent_ids: [agentId] });
    agents.push({ agent_id: agentId, token: token.json().token as string, cert: ca.client(`agent-${name}`, agentId) });
  }
});

afterAll(async () => {
  await server?.close();
  await store?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('mutual TLS: the certificate must be the agent', () => {
  it("authorizes and binds when the certificate's common name is the order's agent_id", async () => {
    const [alpha] = agents;
    const auth = await call(alpha!.cert, 'POST', '/engine/authorize', order(alpha!.agent_id), alpha!.token);
    expect(auth.status, auth.body).toBe(200);
    expect(auth.json()).toMatchObject({ authorized: true, shadow_blocked: false });
    const bind = await call(
      alpha!.cert,
      'POST',
      '/engine/bind-execution',
      { trace_id: auth.json().trace_id, exchange_tx_id: 'X-1', execution_status: 'Filled', executed_quantity: 100, executed_side: 'Long' },
      alpha!.token,
    );
    expect(bind.status, bind.body).toBe(200);
    expect(bind.json()).toMatchObject({ verification_status: 'Matched' });
  });

  it('refuses an order for another agent with 403 mtls_cn_mismatch, even with an owner token, and stores no trace', async () => {
    const [alpha, beta] = agents;
    const body = order(beta!.agent_id);
    for (const token of [owner, beta!.token]) {
      const res = await call(alpha!.cert, 'POST', '/engine/authorize', body, token);
      expect(res.status).toBe(403);
      expect(res.json()).toEqual({
        code: 'mtls_cn_mismatch',
        detail: `the client certificate has common name "${alpha!.agent_id}", not agent ${beta!.agent_id}`,
      });
    }
    const listing = await call(ops, 'GET', `/engine/traces?agent_id=${beta!.agent_id}`);
    expect(listing.status).toBe(200);
    expect(listing.json().traces).toEqual([]);
  });

  it("refuses to bind another agent's trace (403 mtls_cn_mismatch) and leaves it unbound", async () => {
    const [alpha, beta] = agents;
    const auth = await call(beta!.cert, 'POST', '/engine/authorize', order(beta!.agent_id), beta!.token);
    expect(auth.status, auth.body).toBe(200);
    const traceId = auth.json().trace_id as string;
    const bind = await call(alpha!.cert, 'POST', '/engine/bind-execution', { trace_id: traceId, exchange_tx_id: 'X-2', execution_status: 'Filled' });
    expect(bind.status).toBe(403);
    expect(bind.json().code).toBe('mtls_cn_mismatch');
    const trace = await call(ops, 'GET', `/engine/trace/${traceId}`);
    expect(trace.json().integrity).toMatchObject({ status: 'PENDING', final_proof: null, exchange_tx_id: null });
    // A trace that does not exist is still a 404, whichever certificate asks.
    const missing = await call(alpha!.cert, 'POST', '/engine/bind-execution', { trace_id: randomUUID(), exchange_tx_id: 'X-3', execution_status: 'Filled' });
    expect(missing.status).toBe(404);
  });

  it('still needs the token: a right certificate without one is 401 unauthorized, and a token bound to another agent is 403', async () => {
    const [alpha, beta] = agents;
    const none = await call(alpha!.cert, 'POST', '/engine/authorize', order(alpha!.agent_id), null);
    expect([none.status, none.json().code]).toEqual([401, 'unauthorized']);
    const other = await call(alpha!.cert, 'POST', '/engine/authorize', order(alpha!.agent_id), beta!.token);
    expect([other.status, other.json().code]).toEqual([403, 'agent_not_permitted']);
  });
});

describe('mutual TLS: who gets in', () => {
  it('answers 401 client_certificate_required on /engine routes to a client without a certificate', async () => {
    const [alpha] = agents;
    for (const [method, url, body] of [
      ['POST', '/engine/authorize', order(alpha!.agent_id)],
      ['GET', '/engine/admin/tokens'],
      ['GET', '/engine/traces'],
      ['GET', '/engine/regime/'],
    ] as const) {
      const res = await call(null, method, url, body);
      expect(res.status, url).toBe(401);
      expect(res.json().code, url).toBe('client_certificate_required');
    }
  });

  it('answers 401 client_certificate_invalid to a certificate of another CA, and to an expired one, saying why', async () => {
    const [alpha] = agents;
    const rogue = makeCa(dir, 'Rogue CA').client('rogue', alpha!.agent_id);
    const expired = ca.client('expired', alpha!.agent_id, { start: '20200101000000Z', end: '20200201000000Z' });
    for (const [cert, reason] of [
      [rogue, /UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT/],
      [expired, /CERT_HAS_EXPIRED/],
    ] as const) {
      const res = await call(cert, 'POST', '/engine/authorize', order(alpha!.agent_id), alpha!.token);
      expect(res.status).toBe(401);
      expect(res.json().code).toBe('client_certificate_invalid');
      expect(res.json().detail).toMatch(reason);
    }
  });

  it('serves health, the API document and the public /v1 routes without a client certificate', async () => {
    for (const url of ['/engine/health', '/v1/health', '/openapi.json']) {
      const res = await call(null, 'GET', url, undefined, null);
      expect(res.status, url).toBe(200);
    }
    expect((await call(null, 'GET', '/engine/health', undefined, null)).json()).toMatchObject({ db_ok: true, cert_expiry_status: 'ok' });
    // A keyed /v1 route asks for its own key, not for a certificate.
    const keyed = await call(null, 'GET', '/v1/account', undefined, null);
    expect([keyed.status, keyed.json().code, keyed.json().detail]).toEqual([401, 'unauthorized', 'an API key is required: X-Signals-Key: rsk_…']);
  });
});

describe('mutual TLS with TLS_CN_MAP', () => {
  let mapped: RunningServer;
  const callMapped = caller(() => mapped);

  beforeAll(async () => {
    await server.close();
    const [alpha, beta] = agents;
    const mapFile = path.join(dir, 'cn-map.json');
    fs.writeFileSync(mapFile, JSON.stringify({ 'trading-host-1': [alpha!.agent_id, beta!.agent_id], 'trading-host-2': beta!.agent_id }));
    mapped = await startServer({ ...config, tlsCnMap: mapFile });
  });
  afterAll(async () => mapped?.close());

  it('lets a host certificate act for the agents the map gives its common name, and no other', async () => {
    const [alpha, beta] = agents;
    const host1 = ca.client('host-1', 'trading-host-1');
    const host2 = ca.client('host-2', 'trading-host-2');
    for (const agent of [alpha!, beta!]) {
      const res = await callMapped(host1, 'POST', '/engine/authorize', order(agent.agent_id), agent.token);
      expect(res.status, res.body).toBe(200);
    }
    const refused = await callMapped(host2, 'POST', '/engine/authorize', order(alpha!.agent_id), alpha!.token);
    expect(refused.status).toBe(403);
    expect(refused.json()).toEqual({
      code: 'mtls_cn_mismatch',
      detail: `the client certificate has common name "trading-host-2" (which acts for ${beta!.agent_id}), not agent ${alpha!.agent_id}`,
    });
  });

  it('keeps certificates named after their agent working beside the map', async () => {
    const [alpha] = agents;
    const res = await callMapped(alpha!.cert, 'POST', '/engine/authorize', order(alpha!.agent_id), alpha!.token);
    expect(res.status, res.body).toBe(200);
  });
});
