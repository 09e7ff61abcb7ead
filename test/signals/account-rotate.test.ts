/**
 * `GET /v1/account` and `POST /v1/auth/rotate` against real Postgres: the account object of each kind of
 * tier (features, limit or null, today's requests, the URLs), 401 without a key or with an unknown one, a
 * rotation that revokes the presented key at once (403 `key_revoked` after), carries the rolling window and
 * takes a body-less POST of any content type, and two concurrent rotations of one key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountBody, rotatedBody } from '../../src/http/signals/account-schemas.js';
import { expectError, expectSchema, signalsHarness, type SignalsHarness } from '../helpers/signals-accounts.js';

const BASE = 'https://signals.example.com';
let h: SignalsHarness;
beforeAll(async () => {
  h = await signalsHarness({ config: { publicBaseUrl: BASE }, max: 20 });
});
afterAll(async () => h?.close());

const account = (key: string | null) => h.call('GET', '/v1/account', { key });
const rotate = (key: string | null, extra: { body?: unknown; headers?: Record<string, string> } = {}) => h.call('POST', '/v1/auth/rotate', { key, ...extra });

const ACCOUNT_FIELDS = [
  'agent_count',
  'billing_portal_url',
  'docs_url',
  'email',
  'features',
  'payment_status',
  'product',
  'product_line',
  'tier',
  'tier_label',
  'usage',
];

describe('GET /v1/account', () => {
  it("the account object of a free key: tier, features, usage with today's requests and the limit, the URLs", async () => {
    const key = await h.keyFor('free');
    const first = await account(key.api_key);
    expect(first.statusCode, first.body).toBe(200);
    expectSchema(first.json(), accountBody, ACCOUNT_FIELDS);
    expect(first.json()).toEqual({
      email: key.email,
      tier: 'free',
      tier_label: 'Free',
      product: 'tradeseal Regime Signals Free',
      product_line: 'signals',
      agent_count: 0,
      payment_status: 'active',
      features: ['signals', 'history', 'liquidity', 'scorecard', 'performance', 'export'],
      usage: { today_requests: 1, daily_limit: 50 },
      billing_portal_url: `${BASE}/v1/billing/payments/portal`,
      docs_url: `${BASE}/docs`,
    });
    expect(first.headers['x-ratelimit-limit']).toBe('50');
    expect(first.headers['x-ratelimit-remaining']).toBe('49');
    await account(key.api_key);
    const third = await account(key.api_key);
    expect(third.json().usage).toEqual({ today_requests: 3, daily_limit: 50 });
    expect(third.headers['x-ratelimit-remaining']).toBe('47');
  });

  it.each([
    ['starter', { tier_label: 'Starter', product_line: 'signals', usage: { today_requests: 1, daily_limit: 500 } }, ['forecast'], ['backtest']],
    [
      'pro',
      { tier_label: 'Pro', product_line: 'signals', usage: { today_requests: 1, daily_limit: null } },
      ['forecast', 'backtest', 'webhook'],
      ['heartbeat'],
    ],
    ['engine_sidecar', { tier_label: 'Engine sidecar', product_line: 'engine', usage: { today_requests: 1, daily_limit: null } }, ['heartbeat'], ['audit']],
    [
      'engine_audit',
      { tier_label: 'Engine audit', product_line: 'engine', agent_count: 4, usage: { today_requests: 1, daily_limit: null } },
      ['heartbeat', 'audit'],
      [],
    ],
    ['owner', { tier_label: 'Owner', product_line: 'operator', usage: { today_requests: 1, daily_limit: null } }, ['heartbeat', 'backtest'], ['audit']],
  ] as const)('%s: its label, limit (null: none) and features', async (tier, expected, has, hasNot) => {
    const key = await h.keyFor(tier, tier === 'engine_audit' ? { agent_count: 4 } : {});
    const res = await account(key.api_key);
    expect(res.statusCode, res.body).toBe(200);
    expectSchema(res.json(), accountBody, ACCOUNT_FIELDS);
    expect(res.json()).toMatchObject({ tier, ...expected });
    expect(res.json().features).toEqual(expect.arrayContaining([...has, 'signals']));
    for (const f of hasNot) expect(res.json().features).not.toContain(f);
    expect(res.headers['x-ratelimit-limit']).toBe(expected.usage.daily_limit === null ? 'unlimited' : String(expected.usage.daily_limit));
  });

  it('401 without a key, with a blank one, an unknown one, or one that is not an rsk_ key', async () => {
    expect(expectError(await account(null), 401, 'unauthorized').detail).toMatch(/X-Signals-Key/);
    expectError(await h.call('GET', '/v1/account', { headers: { 'x-signals-key': '  ' } }), 401, 'unauthorized');
    expect(expectError(await account(`rsk_${'A'.repeat(43)}`), 401, 'unauthorized').detail).toBe('the API key is unknown');
    expectError(await account('tse_not-a-signals-key'), 401, 'unauthorized');
  });
});

describe('POST /v1/auth/rotate', () => {
  it('200 {api_key, key_prefix, tier, rotated_at}: the old key is refused at once (403 key_revoked), the new one works', async () => {
    const key = await h.keyFor('starter');
    await account(key.api_key);
    const before = Date.now();
    const res = await rotate(key.api_key);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expectSchema(body, rotatedBody, ['api_key', 'key_prefix', 'rotated_at', 'tier']);
    expect(body.tier).toBe('starter');
    expect(body.api_key).not.toBe(key.api_key);
    expect(body.api_key.startsWith(body.key_prefix)).toBe(true);
    expect(Date.parse(body.rotated_at)).toBeGreaterThanOrEqual(before - 5000);

    const old = expectError(await account(key.api_key), 403, 'key_revoked');
    expect(old.detail).toContain(key.key_prefix);
    expectError(await rotate(key.api_key), 403, 'key_revoked');
    const now = await account(body.api_key);
    expect(now.statusCode, now.body).toBe(200);
    // Today's requests are the account's: the old key's 2 (an account read and the rotation) and this one.
    expect(now.json().usage.today_requests).toBe(3);
    const [row] = await h.store.sql`select revoked_at from signal_keys where key_id = ${key.key_id}`;
    expect(row!.revoked_at).not.toBeNull();
  });

  it("the new key takes over the old key's rolling window: rotating does not reset the daily limit", async () => {
    const key = await h.keyFor('free');
    for (let i = 0; i < 10; i++) await account(key.api_key);
    const rotated = (await rotate(key.api_key)).json();
    const res = await account(rotated.api_key);
    // 10 reads and the rotation with the old key, this read with the new one.
    expect(res.headers['x-ratelimit-remaining']).toBe(String(50 - 12));
  });

  it.each([
    ['no content type', {}],
    ['application/json with no body', { headers: { 'content-type': 'application/json' } }],
    ['text/plain with no body', { headers: { 'content-type': 'text/plain' } }],
    ["a form type with no body (curl -d '')", { headers: { 'content-type': 'application/x-www-form-urlencoded' } }],
    ['an unknown content type', { headers: { 'content-type': 'application/octet-stream' } }],
    ['an empty JSON object', { body: '{}', headers: { 'content-type': 'application/json' } }],
  ])('takes a body-less POST: %s', async (_name, extra) => {
    const key = await h.keyFor('free');
    const res = await rotate(key.api_key, extra);
    expect(res.statusCode, res.body).toBe(200);
    expectSchema(res.json(), rotatedBody);
  });

  it('422 for a body: each field listed, or the body named', async () => {
    const key = await h.keyFor('free');
    const fields = expectError(await rotate(key.api_key, { body: { email: 'a@example.com', tier: 'pro' } }), 422, 'validation_failed');
    expect(fields.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'tier']);
    const text = expectError(await rotate(key.api_key, { body: 'please', headers: { 'content-type': 'text/plain' } }), 422, 'validation_failed');
    expect(text.errors).toEqual([{ field: 'body', message: 'must be empty' }]);
    // Refused requests change nothing: the key still works.
    expect((await account(key.api_key)).statusCode).toBe(200);
  });

  it('401 without a key, before anything is read', async () => {
    expectError(await rotate(null), 401, 'unauthorized');
    expectError(await rotate(null, { body: 'x', headers: { 'content-type': 'text/plain' } }), 401, 'unauthorized');
  });

  it('two rotations of one key at once: one new key, the other answer 403 key_revoked', async () => {
    const key = await h.keyFor('pro');
    const results = await Promise.all([rotate(key.api_key), rotate(key.api_key), rotate(key.api_key)]);
    const ok = results.filter((r) => r.statusCode === 200);
    expect(ok, results.map((r) => r.body).join('\n')).toHaveLength(1);
    for (const r of results.filter((x) => x.statusCode !== 200)) expectError(r, 403, 'key_revoked');
    const [live] = await h.store.sql`select count(*)::int as n from signal_keys where account_id = ${key.account_id} and revoked_at is null`;
    expect(live!.n).toBe(1);
  });
});

describe('the OpenAPI document', () => {
  it('lists register, verify, rotate and account with their operationIds, tag, security and error answers', async () => {
    const doc = (await h.call('GET', '/openapi.json')).json();
    const op = (path: string, method: string) => doc.paths[path]?.[method];
    const expected = [
      ['/v1/auth/register', 'post', 'registerAccount', false, ['202', '413', '415', '422', '429', '503']],
      ['/v1/auth/verify', 'post', 'verifyRegistration', false, ['201', '413', '415', '422']],
      ['/v1/auth/rotate', 'post', 'rotateKey', true, ['200', '401', '403', '413', '422', '429']],
      ['/v1/account', 'get', 'getAccount', true, ['200', '401', '403', '429']],
    ] as const;
    for (const [path, method, id, keyed, statuses] of expected) {
      const o = op(path, method);
      expect(o, `${method} ${path}`).toBeDefined();
      expect(o.operationId).toBe(id);
      expect(o.tags).toEqual(['signals accounts']);
      expect(o.security).toEqual(keyed ? [{ signalsKey: [] }] : []);
      expect(Object.keys(o.responses).sort()).toEqual([...statuses]);
    }
    expect(op('/v1/auth/register', 'post').requestBody.content['application/json'].schema.required).toEqual(['email']);
    expect(op('/v1/auth/rotate', 'post').requestBody).toBeUndefined();
  });
});
