/**
 * The webhook routes through `inject()`: Pro only; PUT sets, rotates and removes the webhook and refuses
 * private targets (422 `webhook_target_refused` naming `url`); info shows the URL and the newest delivery,
 * never the secret; test sends a signed payload now and reports a receiver that is down or failing as
 * `delivered: false`, never as an error; the OpenAPI document describes all three.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretKeeper } from '../../../src/secrets/stored-secret.js';
import { configWith } from '../../../src/core/config.js';
import { buildApp } from '../../../src/http/app.js';
import { issueKey } from '../../../src/signals/store/keys.js';
import type { Tier } from '../../../src/signals/tiers.js';
import { verifySignature } from '../../../src/signals/webhooks/signing.js';
import { startWebhookWorker } from '../../../src/signals/webhooks/worker.js';
import { testStore, type TestStore } from '../../helpers/db.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';
import { documented } from '../../helpers/documented.js';

let store: TestStore;
let app: FastifyInstance;
/** The same service with WEBHOOK_ALLOW_PRIVATE=true, for receivers on 127.0.0.1. */
let privateApp: FastifyInstance;
beforeAll(async () => {
  store = await testStore();
  app = await documented(await buildApp(configWith({ logLevel: 'silent' }), { sql: store.sql, services: ['signals'], logger: false }));
  privateApp = await documented(
    await buildApp(configWith({ logLevel: 'silent', webhookAllowPrivate: true }), { sql: store.sql, services: ['signals'], logger: false }),
  );
});
afterAll(async () => {
  await app?.close();
  await privateApp?.close();
  await store?.close();
});

async function key(tier: Tier): Promise<string> {
  const id = randomUUID();
  await store.sql`insert into signal_accounts (account_id, email, tier) values (${id}, ${`${id}@example.test`}, ${tier})`;
  return (await issueKey(store.sql, id)).api_key;
}

const call = (method: 'GET' | 'PUT', url: string, apiKey: string | null, body?: unknown, on: FastifyInstance = app) =>
  on.inject({ method, url, headers: apiKey ? { 'x-signals-key': apiKey } : {}, ...(body === undefined ? {} : { payload: body as object }) });

describe('access', () => {
  it('needs a key, and a Pro (or higher) tier', async () => {
    const starter = await key('starter');
    for (const [method, url, body] of [
      ['PUT', '/v1/webhook', { url: null }],
      ['GET', '/v1/webhook/info'],
      ['GET', '/v1/webhook/test'],
    ] as const) {
      expect((await call(method, url, null, body)).statusCode).toBe(401);
      const refused = await call(method, url, starter, body);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('tier_insufficient');
    }
    for (const tier of ['pro', 'engine_sidecar', 'owner'] as const) expect((await call('GET', '/v1/webhook/info', await key(tier))).statusCode).toBe(200);
  });
});

describe('PUT /v1/webhook', () => {
  it('sets the URL with a new secret (shown once), rotates it on every PUT, and removes it with null; GET /v1/webhook/info shows it without the secret', async () => {
    const k = await key('pro');
    expect((await call('GET', '/v1/webhook/info', k)).json()).toEqual({ url: null, created_at: null, last_delivery: null });

    const first = await call('PUT', '/v1/webhook', k, { url: 'https://203.0.113.7/hooks/tradeseal?x=1' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ url: 'https://203.0.113.7/hooks/tradeseal?x=1', secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/) });
    const info = (await call('GET', '/v1/webhook/info', k)).json();
    expect(info).toEqual({ url: 'https://203.0.113.7/hooks/tradeseal?x=1', created_at: expect.any(String), last_delivery: null });
    expect(JSON.stringify(info)).not.toContain(first.json().secret);

    const second = await call('PUT', '/v1/webhook', k, { url: 'http://[2001:DB8:0::1]:8443/h' });
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json().url).toBe('http://[2001:db8::1]:8443/h');
    expect(second.json().secret).not.toBe(first.json().secret);

    const removed = await call('PUT', '/v1/webhook', k, { url: null });
    expect(removed.json()).toEqual({ url: null, secret: null });
    expect((await call('GET', '/v1/webhook/info', k)).json()).toMatchObject({ url: null, created_at: null });
    expect((await call('PUT', '/v1/webhook', k, { url: null })).statusCode).toBe(200);
  });

  it.each([
    ['http://127.0.0.1:8080/hook', /loopback/],
    ['http://2130706433/', /127\.0\.0\.1 is a loopback address/],
    ['http://0177.0.0.1/', /127\.0\.0\.1 is a loopback address/],
    ['http://[::ffff:127.0.0.1]/', /loopback/],
    ['http://localhost./', /loopback name/],
    ['http://10.0.0.8/', /private/],
    ['http://100.64.0.1/', /carrier-grade NAT/],
    ['http://169.254.169.254/latest/meta-data/', /cloud metadata/],
    ['http://metadata.google.internal/', /cloud metadata/],
    ['http://[fd00:ec2::254]/', /cloud metadata/],
    ['ftp://203.0.113.7/', /scheme ftp:/],
    ['not a url', /absolute http/],
  ])('refuses %s with 422 webhook_target_refused naming url', async (url, message) => {
    const res = await call('PUT', '/v1/webhook', await key('pro'), { url });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'webhook_target_refused', errors: [{ field: 'url', message: expect.stringMatching(message) }] });
  });

  it('accepts private targets when WEBHOOK_ALLOW_PRIVATE is on', async () => {
    const res = await call('PUT', '/v1/webhook', await key('pro'), { url: 'http://127.0.0.1:9/hook' }, privateApp);
    expect(res.statusCode).toBe(200);
  });

  it('validates the body: url required, a string or null, no other field', async () => {
    const k = await key('pro');
    for (const body of [{}, { url: 5 }, { url: 'https://203.0.113.7/', extra: 1 }, { url: '' }]) {
      const res = await call('PUT', '/v1/webhook', k, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().code).toBe('validation_failed');
    }
  });
});

describe('GET /v1/webhook/test', () => {
  let receiver: Receiver;
  let answer = 200;
  beforeAll(async () => {
    receiver = await startReceiver(() => answer);
  });
  afterAll(async () => receiver?.close());

  it('404 without a webhook', async () => {
    const res = await call('GET', '/v1/webhook/test', await key('pro'));
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('not_found');
  });

  it('sends a signed test payload now and records it; a failing or absent receiver is delivered: false, not an error', async () => {
    const k = await key('pro');
    const { secret } = (await call('PUT', '/v1/webhook', k, { url: `${receiver.url}/t` }, privateApp)).json();

    const ok = await call('GET', '/v1/webhook/test', k, undefined, privateApp);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ delivered: true, status: 200, error: null, delivery_id: expect.any(String) });
    const got = receiver.received.at(-1)!;
    expect(got).toMatchObject({ path: '/t', event: 'test', deliveryId: ok.json().delivery_id, contentType: 'application/json' });
    expect(verifySignature(secret, got.body, got.signature)).toBe(true);
    expect(JSON.parse(got.body)).toMatchObject({ type: 'test', id: expect.any(String), created_at: expect.any(String) });
    expect((await call('GET', '/v1/webhook/info', k, undefined, privateApp)).json().last_delivery).toMatchObject({
      delivery_id: ok.json().delivery_id,
      event: 'test',
      state: 'delivered',
      delivered: true,
      attempts: 1,
      status: 200,
      error: null,
      next_attempt_at: null,
    });

    answer = 500;
    const failing = await call('GET', '/v1/webhook/test', k, undefined, privateApp);
    answer = 200;
    expect(failing.json()).toMatchObject({ delivered: false, status: 500, error: 'the receiver answered 500' });
    expect((await call('GET', '/v1/webhook/info', k, undefined, privateApp)).json().last_delivery).toMatchObject({
      event: 'test',
      state: 'failed',
      delivered: false,
      status: 500,
    });

    // A receiver that is down: a port nobody listens on.
    const down = await startReceiver();
    const downUrl = `${down.url}/gone`;
    await down.close();
    await call('PUT', '/v1/webhook', k, { url: downUrl }, privateApp);
    const refused = await call('GET', '/v1/webhook/test', k, undefined, privateApp);
    expect(refused.statusCode).toBe(200);
    expect(refused.json()).toMatchObject({ delivered: false, status: null, error: expect.stringMatching(/ECONNREFUSED/) });

    // Tests are never retried by the worker.
    const before = receiver.received.length;
    const w = startWebhookWorker(store.sql, {
      allowPrivate: true,
      secrets: new SecretKeeper(null),
      pollMs: 10,
      retry: { baseMs: 10, capMs: 10, maxAttempts: 3 },
    });
    await new Promise((r) => setTimeout(r, 200));
    await w.stop();
    expect(receiver.received).toHaveLength(before);
  });

  it("422 when the webhook's target is refused now (the guard runs again at test time)", async () => {
    const k = await key('pro');
    await call('PUT', '/v1/webhook', k, { url: `${receiver.url}/t` }, privateApp);
    const res = await call('GET', '/v1/webhook/test', k);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'webhook_target_refused', errors: [{ field: 'url' }] });
  });
});

describe('OpenAPI', () => {
  it('documents the three routes with operation ids, the tag, the key and their errors', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const ops = [
      [doc.paths['/v1/webhook'].put, 'putWebhook'],
      [doc.paths['/v1/webhook/info'].get, 'getWebhookInfo'],
      [doc.paths['/v1/webhook/test'].get, 'testWebhook'],
    ];
    for (const [op, id] of ops) {
      expect(op).toMatchObject({ operationId: id, tags: ['signals webhook'], security: [{ signalsKey: [] }] });
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '403']));
    }
    expect(Object.keys(doc.paths['/v1/webhook'].put.responses)).toContain('422');
    expect(Object.keys(doc.paths['/v1/webhook/test'].get.responses)).toEqual(expect.arrayContaining(['404', '422']));
  });
});
