/**
 * The signal service's operator API (`/v1/admin/…`, owner keys): every route answers as documented (each
 * response is checked against the served API document), only to an owner key (401 without a key, 403
 * `tier_insufficient` to any other tier), with 422 for bad input and 404 for an unknown key; an issued key
 * works at once and a revoked one is refused from its next request.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, signalsHarness, uniqueEmail, type SignalsHarness } from '../helpers/signals-accounts.js';

let h: SignalsHarness;
let owner = '';
beforeAll(async () => {
  h = await signalsHarness({ config: { smtpUrl: null } });
  owner = (await h.keyFor('owner')).api_key;
});
afterAll(async () => h?.close());

describe('/v1/admin', () => {
  it('issues a key (201, the secret once), sets the tier, lists without secrets and revokes', async () => {
    const email = uniqueEmail('admin');
    const issued = await h.call('POST', '/v1/admin/keys', { key: owner, body: { email, tier: 'starter', agent_count: 2 } });
    expect(issued.statusCode, issued.body).toBe(201);
    const key = issued.json();
    expect(key).toMatchObject({ email, tier: 'starter', agent_count: 2, account_created: true });
    expect((await h.call('GET', '/v1/account', { key: key.api_key })).json().tier).toBe('starter');

    const tier = await h.call('POST', '/v1/admin/tier', { key: owner, body: { key_id: key.key_id, tier: 'pro' } });
    expect(tier.statusCode, tier.body).toBe(200);
    expect(tier.json()).toMatchObject({ tier: 'pro', previous_tier: 'starter', agent_count: 2 });

    const listed = await h.call('GET', `/v1/admin/keys?email=${encodeURIComponent(email.toUpperCase())}`, { key: owner });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json()).toMatchObject({ count: 1, keys: [{ key_id: key.key_id, tier: 'pro', revoked_at: null }] });
    expect(listed.body).not.toContain(key.api_key);

    const revoked = await h.call('POST', `/v1/admin/keys/${key.key_id}/revoke`, { key: owner });
    expect(revoked.json()).toMatchObject({ key_id: key.key_id, revoked_now: true });
    expect((await h.call('POST', `/v1/admin/keys/${key.key_id}/revoke`, { key: owner })).json()).toMatchObject({ revoked_now: false });
    expectError(await h.call('GET', '/v1/account', { key: key.api_key }), 403, 'key_revoked');
  });

  it('shows the outbox, newest last, to one address with `to`; a code once', async () => {
    const ann = uniqueEmail('ann');
    expect((await h.call('POST', '/v1/auth/register', { body: { email: ann } })).statusCode).toBe(202);
    const res = await h.call('GET', `/v1/admin/outbox?to=${encodeURIComponent(ann)}&limit=1`, { key: owner });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ count: 1, messages: [{ recipient: ann, body: expect.stringMatching(/Your verification code is \d{6}\./) }] });
    const again = await h.call('GET', `/v1/admin/outbox?to=${encodeURIComponent(ann)}&limit=1`, { key: owner });
    expect(again.json()).toMatchObject({ count: 1, messages: [{ recipient: ann, body: expect.stringContaining('Your verification code is [removed].') }] });
  });

  it('answers owner keys only: 401 without a key, 403 tier_insufficient to every other tier', async () => {
    expectError(await h.call('GET', '/v1/admin/keys'), 401, 'unauthorized');
    for (const tier of ['free', 'starter', 'pro', 'engine_sidecar', 'engine_audit'] as const) {
      const key = (await h.keyFor(tier, tier === 'engine_audit' ? { agent_count: 3 } : {})).api_key;
      expectError(await h.call('GET', '/v1/admin/outbox', { key }), 403, 'tier_insufficient');
    }
  });

  it('422 for bad input (naming the fields), 404 for an unknown key, 409 for another tier of an existing account', async () => {
    const bad = expectError(await h.call('POST', '/v1/admin/keys', { key: owner, body: { email: 'not-an-address', tier: 'gold' } }), 422, 'validation_failed');
    expect(bad.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'tier']);
    expectError(await h.call('GET', '/v1/admin/outbox?limit=0', { key: owner }), 422, 'validation_failed');
    expectError(await h.call('POST', '/v1/admin/keys/not-a-uuid/revoke', { key: owner }), 422, 'validation_failed');
    expectError(await h.call('POST', `/v1/admin/keys/${randomUUID()}/revoke`, { key: owner }), 404, 'not_found');
    expectError(await h.call('POST', '/v1/admin/tier', { key: owner, body: { email: uniqueEmail('nobody'), tier: 'pro' } }), 404, 'not_found');
    const email = uniqueEmail('twice');
    await h.keyFor('starter', { email });
    expect((await h.call('POST', '/v1/admin/keys', { key: owner, body: { email, tier: 'pro' } })).statusCode).toBe(409);
  });
});
