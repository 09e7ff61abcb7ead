/**
 * `tradeseal signals keys issue|set-tier|revoke|list` and `tradeseal signals outbox` against a real store,
 * with the signal service's app on the same store to show what each command does to a key's requests: an
 * issued key works with its tier, a tier change holds from the next request, a revoked key is refused at once,
 * the listing never shows a secret, and the outbox shows the mail of a register when SMTP_URL is unset, its code once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/crypto/hash.js';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { expectError, signalsHarness, uniqueEmail, type SignalsHarness } from '../helpers/signals-accounts.js';

let h: SignalsHarness;
let env: CliEnv;
const home = tempHome();
beforeAll(async () => {
  h = await signalsHarness();
  env = cliEnv(home, h.store.url, { SMTP_URL: undefined });
});
afterAll(async () => h?.close());

const KEY = /^rsk_[A-Za-z0-9_-]{43}$/m;
const tierOf = async (key: string): Promise<string> => {
  const res = await h.call('GET', '/v1/account', { key });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().tier;
};

describe('signals keys issue', () => {
  it('creates the account, prints the key once (text and --json), and the key works with its tier', async () => {
    const email = uniqueEmail('cli');
    const text = await runCli(['signals', 'keys', 'issue', '--email', email, '--tier', 'starter'], env);
    expect(text.code, describeRun(text)).toBe(0);
    const secret = KEY.exec(text.stdout)?.[0];
    expect(secret).toBeDefined();
    expect(text.stdout).toMatch(/shown once/);
    expect(text.stdout).toMatch(/\(created\)/);
    expect(await tierOf(secret!)).toBe('starter');

    const json = await runCli(['signals', 'keys', 'issue', '--email', email.toUpperCase(), '--tier', 'starter', '--json'], env);
    expect(json.code, describeRun(json)).toBe(0);
    const issued = json.json();
    expect(Object.keys(issued).sort()).toEqual([
      'account_created',
      'account_id',
      'agent_count',
      'api_key',
      'created_at',
      'email',
      'key_id',
      'key_prefix',
      'tier',
    ]);
    expect(issued).toMatchObject({ email, tier: 'starter', agent_count: 0, account_created: false });
    expect(issued.api_key).toMatch(KEY);
    expect(issued.api_key.startsWith(issued.key_prefix)).toBe(true);
    // A second key of the same account: both work.
    expect(await tierOf(issued.api_key)).toBe('starter');
    expect(await tierOf(secret!)).toBe('starter');
  }, 60_000);

  it('refuses another tier for an existing account (exit 4, naming set-tier), and bad flags all at once (exit 2)', async () => {
    const email = uniqueEmail('cli');
    expect((await runCli(['signals', 'keys', 'issue', '--email', email, '--tier', 'engine_audit', '--agent-count', '5'], env)).code).toBe(0);
    const [otherTier, otherAgents, bad] = await Promise.all([
      runCli(['signals', 'keys', 'issue', '--email', email, '--tier', 'free'], env),
      runCli(['signals', 'keys', 'issue', '--email', email, '--tier', 'engine_audit', '--agent-count', '2', '--json'], env),
      runCli(['signals', 'keys', 'issue', '--email', 'not-an-address', '--tier', 'gold', '--agent-count', '-1', '--json'], env),
    ]);
    expect(otherTier.code, describeRun(otherTier)).toBe(4);
    expect(otherTier.stderr).toMatch(/its tier is engine_audit, not free; no key was issued/);
    expect(otherTier.stderr).toMatch(/signals keys set-tier/);
    expect(otherAgents.code, describeRun(otherAgents)).toBe(4);
    expect(otherAgents.json().error).toMatchObject({ code: 'conflict', detail: expect.stringMatching(/agent count is 5, not 2/) });
    expect(bad.code, describeRun(bad)).toBe(2);
    expect(bad.json().error.code).toBe('validation_failed');
    expect(
      bad
        .json()
        .error.errors.map((e: { field: string }) => e.field)
        .sort(),
    ).toEqual(['--agent-count', '--email', '--tier']);
  }, 60_000);
});

describe('signals keys set-tier', () => {
  it('changes the tier of the account by e-mail or by key_id; every key has it from its next request', async () => {
    const first = await h.keyFor('free');
    const second = await h.keyFor('free', { email: first.email });
    expect(await tierOf(first.api_key)).toBe('free');

    const byEmail = await runCli(['signals', 'keys', 'set-tier', first.email, '--tier', 'pro', '--json'], env);
    expect(byEmail.code, describeRun(byEmail)).toBe(0);
    expect(byEmail.json()).toMatchObject({ email: first.email, tier: 'pro', previous_tier: 'free', agent_count: 0 });
    expect(await tierOf(first.api_key)).toBe('pro');
    expect(await tierOf(second.api_key)).toBe('pro');
    expect((await h.call('GET', '/v1/account', { key: second.api_key })).headers['x-ratelimit-limit']).toBe('unlimited');

    const byKey = await runCli(['signals', 'keys', 'set-tier', second.key_id, '--tier', 'engine_audit', '--agent-count', '3'], env);
    expect(byKey.code, describeRun(byKey)).toBe(0);
    expect(byKey.stdout).toMatch(/pro -> engine_audit/);
    expect((await h.call('GET', '/v1/account', { key: first.api_key })).json()).toMatchObject({ tier: 'engine_audit', agent_count: 3 });
  }, 60_000);

  it('exit 3 for an unknown account, exit 2 for a bad tier or a key secret in place of its id', async () => {
    const key = await h.keyFor('free');
    const [unknownEmail, unknownKey, badTier, secret] = await Promise.all([
      runCli(['signals', 'keys', 'set-tier', uniqueEmail('nobody'), '--tier', 'pro'], env),
      runCli(['signals', 'keys', 'set-tier', '3f1c2b7a-8d4e-4f6a-9b0c-1d2e3f4a5b6c', '--tier', 'pro'], env),
      runCli(['signals', 'keys', 'set-tier', key.email, '--tier', 'platinum', '--json'], env),
      runCli(['signals', 'keys', 'set-tier', key.api_key, '--tier', 'pro'], env),
    ]);
    expect(unknownEmail.code, describeRun(unknownEmail)).toBe(3);
    expect(unknownEmail.stderr).toMatch(/no account has the address/);
    expect(unknownKey.code, describeRun(unknownKey)).toBe(3);
    expect(badTier.code, describeRun(badTier)).toBe(2);
    expect(badTier.json().error.errors).toEqual([{ field: '--tier', message: expect.stringMatching(/^must be one of "free", "starter"/) }]);
    expect(secret.code, describeRun(secret)).toBe(2);
    expect(secret.stderr).toMatch(/KEY_ID_OR_EMAIL/);
    expect(secret.stderr).toMatch(/that is a key secret/);
    expect(secret.stderr).not.toContain(key.api_key.slice(4));
    expect(await tierOf(key.api_key)).toBe('free');
  }, 60_000);
});

describe('signals keys revoke and list', () => {
  it('revoke: the key is refused from its next request (403 key_revoked); again reports the first time; unknown exit 3', async () => {
    const key = await h.keyFor('pro');
    expect(await tierOf(key.api_key)).toBe('pro');
    const revoked = await runCli(['signals', 'keys', 'revoke', key.key_id, '--json'], env);
    expect(revoked.code, describeRun(revoked)).toBe(0);
    expect(revoked.json()).toMatchObject({ key_id: key.key_id, email: key.email, revoked_now: true });
    // The command is another process than the server: the server learns of it within ENGINE_STATE_REFRESH_MS,
    // its documented bound for an unlimited key's cached admission.
    await new Promise((resolve) => setTimeout(resolve, h.config.stateRefreshMs));
    expectError(await h.call('GET', '/v1/account', { key: key.api_key }), 403, 'key_revoked');

    const [again, unknown, secret] = await Promise.all([
      runCli(['signals', 'keys', 'revoke', key.key_id], env),
      runCli(['signals', 'keys', 'revoke', '3f1c2b7a-8d4e-4f6a-9b0c-1d2e3f4a5b6c'], env),
      runCli(['signals', 'keys', 'revoke', key.api_key], env),
    ]);
    expect(again.code, describeRun(again)).toBe(0);
    expect(again.stdout).toContain(`was already revoked at ${revoked.json().revoked_at}`);
    expect(unknown.code, describeRun(unknown)).toBe(3);
    expect(secret.code, describeRun(secret)).toBe(2);
    expect(secret.stderr).toMatch(/revoke takes its key_id/);
  }, 60_000);

  it('list: key_id, key_prefix, email, tier, created_at, revoked_at, last_used_at; never a secret or a hash', async () => {
    const live = await h.keyFor('starter');
    const gone = await h.keyFor('starter', { email: live.email });
    await h.call('GET', '/v1/account', { key: live.api_key });
    await h.store.sql`update signal_keys set revoked_at = now() where key_id = ${gone.key_id}`;

    const [json, text] = await Promise.all([
      runCli(['signals', 'keys', 'list', '--email', live.email, '--json'], env),
      runCli(['signals', 'keys', 'list'], env),
    ]);
    expect(json.code, describeRun(json)).toBe(0);
    const listed = json.json();
    expect(listed.count).toBe(2);
    expect(listed.keys.map((k: { key_id: string }) => k.key_id)).toEqual([gone.key_id, live.key_id]);
    for (const k of listed.keys) {
      expect(Object.keys(k).sort()).toEqual(['account_id', 'agent_count', 'created_at', 'email', 'key_id', 'key_prefix', 'last_used_at', 'revoked_at', 'tier']);
    }
    expect(listed.keys[0]).toMatchObject({ email: live.email, tier: 'starter', revoked_at: expect.any(String) });
    expect(listed.keys[1]).toMatchObject({ revoked_at: null, last_used_at: expect.any(String) });
    expect(text.code, describeRun(text)).toBe(0);
    expect(text.stdout).toMatch(/key_id\s+key_prefix\s+email\s+tier\s+state\s+created_at\s+revoked_at\s+last_used_at/);
    expect(text.stdout).toContain(live.email);
    for (const out of [json.stdout, text.stdout]) {
      for (const k of [live, gone]) {
        expect(out).not.toContain(k.api_key);
        expect(out).not.toContain(k.api_key.slice(12));
        expect(out).not.toContain(sha256Hex(k.api_key));
      }
    }
  }, 60_000);
});

describe('signals outbox', () => {
  it('shows the mail of registrations when SMTP_URL is unset, newest last, each code once; --to and --limit narrow it', async () => {
    const ann = uniqueEmail('ann');
    const bob = uniqueEmail('bob');
    expect((await h.call('POST', '/v1/auth/register', { body: { email: ann } })).statusCode).toBe(202);
    expect((await h.call('POST', '/v1/auth/register', { body: { email: bob } })).statusCode).toBe(202);

    // The first read delivers Ann's mail: its code is shown this once.
    const one = await runCli(['signals', 'outbox', '--to', ann, '--limit', '1', '--json'], env);
    expect(one.code, describeRun(one)).toBe(0);
    expect(one.json()).toMatchObject({
      count: 1,
      messages: [{ recipient: ann, subject: expect.stringContaining('verification code'), body: expect.stringMatching(/Your verification code is \d{6}\./) }],
    });
    const annCode = /verification code is (\d{6})\./.exec(one.json().messages[0].body)![1]!;

    const [all, text, bad] = await Promise.all([
      runCli(['signals', 'outbox', '--json'], env),
      runCli(['signals', 'outbox'], env),
      runCli(['signals', 'outbox', '--to', 'nobody'], env),
    ]);
    expect(all.code, describeRun(all)).toBe(0);
    const recipients = all.json().messages.map((m: { recipient: string }) => m.recipient);
    expect(recipients.slice(-2)).toEqual([ann, bob]);
    expect(text.code, describeRun(text)).toBe(0);
    expect(text.stdout.lastIndexOf(`To: ${bob}`)).toBeGreaterThan(text.stdout.lastIndexOf(`To: ${ann}`));
    // Read again, Ann's code is gone; Bob's was shown by exactly one of the two reads.
    expect(all.stdout + text.stdout).not.toContain(annCode);
    expect(text.stdout).toContain('Your verification code is [removed].');
    expect((all.stdout + text.stdout).match(/Your verification code is \d{6}\./g)).toHaveLength(1);
    expect(bad.code, describeRun(bad)).toBe(2);
    expect(bad.stderr).toContain('--to');

    // The code from the outbox verifies.
    const verified = await h.call('POST', '/v1/auth/verify', { body: { email: ann, code: annCode } });
    expect(verified.statusCode, verified.body).toBe(201);
  }, 60_000);
});
