/**
 * Registration (`POST /v1/auth/register`, `POST /v1/auth/verify`) with mail going to the outbox (SMTP_URL
 * unset), against real Postgres: the 202 and the mailed code, that only its hash is stored, a new register
 * replacing the code, the account and first key that verify creates, every 422 (each bad field, a wrong code,
 * an expired one, five wrong tries), an address that already has an account, and concurrent verifications
 * of one code creating one account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicBaseUrl } from '../../src/core/public-base-url.js';
import { registeredBody, verifiedBody } from '../../src/http/signals/account-schemas.js';
import { codeHasher } from '../../src/signals/verification.js';
import { expectError, expectSchema, signalsHarness, uniqueEmail, type SignalsHarness } from '../helpers/signals-accounts.js';

let h: SignalsHarness;
beforeAll(async () => {
  h = await signalsHarness({ max: 20 });
});
afterAll(async () => h?.close());

/** Each register from a client address of its own: the hourly limits per client address are registration-limits.test.ts's. */
let clients = 0;
const register = (email: string) => h.call('POST', '/v1/auth/register', { body: { email }, ip: `10.1.${Math.floor(++clients / 250)}.${(clients % 250) + 1}` });
/** As if the minute between two registration mails to one address had passed. */
const aMinuteLater = (email: string) => h.store.sql`update signal_mail_throttle set last_sent_at = last_sent_at - interval '1 minute' where email = ${email}`;
const verify = (email: string, code: string) => h.call('POST', '/v1/auth/verify', { body: { email, code } });
const wrong = (code: string): string => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
const accounts = async (email: string): Promise<number> =>
  (await h.store.sql<Array<{ n: number }>>`select count(*)::int as n from signal_accounts where email = ${email}`)[0]!.n;

describe('POST /v1/auth/register', () => {
  it('202 {status: "verification_sent", email}; the code is mailed, and only its hash is stored', async () => {
    const email = uniqueEmail();
    const res = await register(email);
    expect(res.statusCode, res.body).toBe(202);
    expectSchema(res.json(), registeredBody, ['email', 'status']);
    expect(res.json()).toEqual({ status: 'verification_sent', email });

    const code = await h.outboxCode(email);
    expect(code).toMatch(/^\d{6}$/);
    const [mail] = await h.store.sql`select subject, body from signal_outbox where recipient = ${email}`;
    expect(mail!.body).toContain('valid for 15 minutes');
    expect(mail!.body).toContain(`${publicBaseUrl(h.config)}/v1/auth/verify`);

    const [row] = await h.store
      .sql`select code_hash, attempts, extract(epoch from expires_at - created_at)::int as ttl, row_to_json(v)::text as everything from signal_verifications v where email = ${email}`;
    // Without a key-management provider the stored form is scrypt (src/signals/verification.ts), of this code.
    expect(row!.code_hash).toMatch(/^scrypt:16:8:1:[0-9a-f]{32}:[0-9a-f]{64}$/);
    expect(await codeHasher(null).matches(row!.code_hash, email, code)).toBe(true);
    expect(row!.everything).not.toContain(`"${code}"`);
    expect(row!.attempts).toBe(0);
    expect(row!.ttl).toBe(900);
  });

  it('keeps and answers the address in lower case', async () => {
    const email = uniqueEmail('Mixed.Case');
    const res = await register(email.toUpperCase());
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().email).toBe(email.toLowerCase());
    const code = await h.outboxCode(email);
    const ok = await verify(email.replace('example', 'EXAMPLE'), code);
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().email).toBe(email.toLowerCase());
  });

  it('sends at most one mail a minute to an address: a register within the minute is 429 rate_limited', async () => {
    const email = uniqueEmail('throttle');
    expect((await register(email)).statusCode).toBe(202);
    const again = expectError(await register(email), 429, 'rate_limited');
    expect(again.detail).toMatch(/less than a minute ago; the next one may go at .+Z/);
    expect((await h.store.sql`select count(*)::int as n from signal_outbox where recipient = ${email}`)[0]!.n).toBe(1);
    // Of concurrent registers of a new address, one mails.
    const burst = uniqueEmail('burst');
    const results = await Promise.all(Array.from({ length: 6 }, () => register(burst)));
    expect(results.map((r) => r.statusCode).sort()).toEqual([202, 429, 429, 429, 429, 429]);
    await aMinuteLater(email);
    expect((await register(email)).statusCode).toBe(202);
  });

  it('a new register replaces the earlier code', async () => {
    const email = uniqueEmail();
    await register(email);
    const first = await h.outboxCode(email);
    await aMinuteLater(email);
    await register(email);
    const second = await h.outboxCode(email);
    if (first !== second) expectError(await verify(email, first), 422, 'verification_failed');
    const ok = await verify(email, second);
    expect(ok.statusCode, ok.body).toBe(201);
  });

  it('an address that has an account: the same 202, a mail that says so with no code, and never a second account', async () => {
    const email = uniqueEmail('existing');
    await h.keyFor('starter', { email });
    const res = await register(email);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({ status: 'verification_sent', email });
    const [mail] = await h.store.sql`select subject, body from signal_outbox where recipient = ${email} order by id desc limit 1`;
    expect(mail!.subject).toContain('already has an account');
    expect(mail!.body).toContain('/v1/auth/rotate');
    expect(mail!.body).not.toMatch(/\b\d{6}\b/);
    expect((await h.store.sql`select 1 from signal_verifications where email = ${email}`).length).toBe(0);
    // No code can be guessed into a second account.
    expectError(await verify(email, '000000'), 422, 'verification_failed');
    expect(await accounts(email)).toBe(1);
  });

  it.each([
    ['no email', {}, ['email']],
    ['an email that is not a string', { email: 42 }, ['email']],
    ['an email without a domain', { email: 'ann' }, ['email']],
    ['an email with a dotless domain', { email: 'ann@localhost' }, ['email']],
    ['an email with spaces', { email: 'ann smith@example.com' }, ['email']],
    ['an email with a line break (a header injection)', { email: 'ann@example.com\r\nBcc: all@example.com' }, ['email']],
    ['an email over 254 characters', { email: `${'a'.repeat(60)}@${'b'.repeat(190)}.com` }, ['email']],
    ['a local part over 64 characters', { email: `${'a'.repeat(65)}@example.com` }, ['email']],
    ['an unknown field', { email: 'ann@example.com', name: 'Ann' }, ['name']],
  ])('422 validation_failed for %s', async (_name, body, fields) => {
    const res = await h.call('POST', '/v1/auth/register', { body });
    const err = expectError(res, 422, 'validation_failed');
    expect(err.errors.map((e: { field: string }) => e.field).sort()).toEqual(fields);
  });

  it('refuses malformed JSON (422 invalid_json), another media type (415), and an array body', async () => {
    expectError(await h.call('POST', '/v1/auth/register', { body: '{"email": ', headers: { 'content-type': 'application/json' } }), 422, 'invalid_json');
    expectError(
      await h.call('POST', '/v1/auth/register', { body: 'email=a@b.com', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      415,
      'unsupported_media_type',
    );
    expectError(
      await h.call('POST', '/v1/auth/register', { body: '["a@example.com"]', headers: { 'content-type': 'application/json' } }),
      422,
      'validation_failed',
    );
  });
});

describe('POST /v1/auth/verify', () => {
  it('201 {api_key, email, tier: "free", daily_limit: 50}: the account and its first key, which works', async () => {
    const email = uniqueEmail();
    await register(email);
    const code = await h.outboxCode(email);
    const res = await verify(email, code);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expectSchema(body, verifiedBody, ['api_key', 'daily_limit', 'email', 'tier']);
    expect(body).toMatchObject({ email, tier: 'free', daily_limit: 50 });
    expect(body.api_key).toMatch(/^rsk_[A-Za-z0-9_-]{43}$/);

    const [account] = await h.store.sql`select tier, agent_count from signal_accounts where email = ${email}`;
    expect(account).toEqual({ tier: 'free', agent_count: 0 });
    const [key] = await h.store
      .sql`select row_to_json(k)::text as everything from signal_keys k join signal_accounts a using (account_id) where a.email = ${email}`;
    expect(key!.everything).not.toContain(body.api_key);

    const me = await h.call('GET', '/v1/account', { key: body.api_key });
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json()).toMatchObject({ email, tier: 'free', usage: { daily_limit: 50 } });
    // The code is used up.
    const again = expectError(await verify(email, code), 422, 'verification_failed');
    expect(again.detail).toMatch(/no verification code is pending/);
  });

  it('422 verification_failed for a wrong code, counting the tries left', async () => {
    const email = uniqueEmail();
    await register(email);
    const code = await h.outboxCode(email);
    const res = expectError(await verify(email, wrong(code)), 422, 'verification_failed');
    expect(res.detail).toBe('the code is wrong; 4 tries are left');
    expect(res.errors).toBeUndefined();
    const ok = await verify(email, code);
    expect(ok.statusCode, ok.body).toBe(201);
  });

  it('five wrong tries invalidate the code: then even the right one fails, until a new register', async () => {
    const email = uniqueEmail();
    await register(email);
    const code = await h.outboxCode(email);
    for (let i = 1; i <= 5; i++) {
      const r = expectError(await verify(email, wrong(code)), 422, 'verification_failed');
      if (i === 5) expect(r.detail).toMatch(/this code no longer works/);
    }
    const right = expectError(await verify(email, code), 422, 'verification_failed');
    expect(right.detail).toMatch(/5 wrong codes were tried/);
    expect(await accounts(email)).toBe(0);

    await aMinuteLater(email);
    await register(email);
    const ok = await verify(email, await h.outboxCode(email));
    expect(ok.statusCode, ok.body).toBe(201);
  });

  it('concurrent wrong tries are each counted: eight at once leave the code used up', async () => {
    const email = uniqueEmail();
    await register(email);
    const code = await h.outboxCode(email);
    const results = await Promise.all(Array.from({ length: 8 }, () => verify(email, wrong(code))));
    for (const r of results) expectError(r, 422, 'verification_failed');
    const [row] = await h.store.sql`select attempts from signal_verifications where email = ${email}`;
    expect(row!.attempts).toBe(5);
    expectError(await verify(email, code), 422, 'verification_failed');
  });

  it('422 verification_failed for an expired code (15 minutes)', async () => {
    const email = uniqueEmail();
    await register(email);
    const code = await h.outboxCode(email);
    await h.store.sql`update signal_verifications set expires_at = now() - interval '1 second' where email = ${email}`;
    const res = expectError(await verify(email, code), 422, 'verification_failed');
    expect(res.detail).toMatch(/^the code expired at .+Z: register again/);
    expect(await accounts(email)).toBe(0);
  });

  it('422 verification_failed when no code is pending for the address', async () => {
    const res = expectError(await verify(uniqueEmail(), '123456'), 422, 'verification_failed');
    expect(res.detail).toMatch(/no verification code is pending/);
  });

  it('two verifications of one code at the same instant create one account and one key', async () => {
    for (let round = 0; round < 5; round++) {
      const email = uniqueEmail('race');
      await register(email);
      const code = await h.outboxCode(email);
      const results = await Promise.all(Array.from({ length: 4 }, () => verify(email, code)));
      const statuses = results.map((r) => r.statusCode).sort();
      expect(statuses, results.map((r) => r.body).join('\n')).toEqual([201, 422, 422, 422]);
      for (const r of results.filter((x) => x.statusCode === 422)) expect(r.json().code).toBe('verification_failed');
      expect(await accounts(email)).toBe(1);
      const [keys] = await h.store.sql`select count(*)::int as n from signal_keys k join signal_accounts a using (account_id) where a.email = ${email}`;
      expect(keys!.n).toBe(1);
    }
  });

  it.each([
    ['no code', { email: 'ann@example.com' }, ['code']],
    ['a 5-digit code', { email: 'ann@example.com', code: '12345' }, ['code']],
    ['a 7-digit code', { email: 'ann@example.com', code: '1234567' }, ['code']],
    ['a code with letters', { email: 'ann@example.com', code: '12a456' }, ['code']],
    ['a code as a number', { email: 'ann@example.com', code: 123456 }, ['code']],
    ['no email', { code: '123456' }, ['email']],
    ['a bad email and a bad code, both listed', { email: 'nobody', code: 'x' }, ['code', 'email']],
    ['an unknown field', { email: 'ann@example.com', code: '123456', tier: 'pro' }, ['tier']],
  ])('422 validation_failed for %s', async (_name, body, fields) => {
    const err = expectError(await h.call('POST', '/v1/auth/verify', { body }), 422, 'validation_failed');
    expect(err.errors.map((e: { field: string }) => e.field).sort()).toEqual(fields);
  });
});
