/**
 * Token issue and revoke (`/engine/admin/tokens`, owner): the issue response, that only a SHA-256 of the
 * secret is stored, revocation and expiry (401 after), 404 and 422 of revoke, and the owner requirement.
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from 'postgres';
import { TokenCache } from '../../src/engine/token-cache.js';
import { issueToken } from '../../src/engine/store/tokens.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

let h: EngineHarness;

beforeAll(async () => {
  h = await engineHarness();
  await h.publishRegime('expansion');
});
afterAll(async () => h?.close());

/** Any read a valid token may do. */
const canRead = async (token: string) => (await h.call('GET', '/engine/traces?limit=1', undefined, token)).statusCode;

describe('POST /engine/admin/tokens', () => {
  it('200 with {token_id, token, client_name, role, created_at, expires_at}; the token is tse_ + ≥ 256 random bits', async () => {
    const before = Date.now();
    const res = await h.call('POST', '/engine/admin/tokens', { client_name: 'risk-desk' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(expect.arrayContaining(['token_id', 'token', 'client_name', 'role', 'created_at', 'expires_at']));
    expect(body).toMatchObject({ client_name: 'risk-desk', role: 'client', expires_at: null });
    expect(body.token_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Date.parse(body.created_at)).toBeGreaterThanOrEqual(before - 5000);
    expect(body.created_at).toMatch(/Z$/);

    expect(body.token).toMatch(/^tse_[A-Za-z0-9_-]+$/);
    const secret = Buffer.from(body.token.slice(4), 'base64url');
    expect(secret.length * 8).toBeGreaterThanOrEqual(256);
    expect(body.token).not.toBe(h.ownerToken);
  });

  it('the issued token works, and two issues never give the same secret', async () => {
    const a = (await h.call('POST', '/engine/admin/tokens', { client_name: 'a' })).json();
    const b = (await h.call('POST', '/engine/admin/tokens', { client_name: 'a' })).json();
    expect(a.token).not.toBe(b.token);
    expect(a.token_id).not.toBe(b.token_id);
    expect(await canRead(a.token)).toBe(200);
    expect(await canRead(b.token)).toBe(200);
  });

  it('the store holds only the SHA-256 of the secret, never the secret', async () => {
    const body = (await h.call('POST', '/engine/admin/tokens', { client_name: 'hash-check' })).json();
    const [row] = await h.store.sql`select token_hash, row_to_json(t)::text as everything from engine_tokens t where token_id = ${body.token_id}`;
    expect(row!.token_hash).toBe(sha256(body.token));
    expect(row!.everything).not.toContain(body.token);
    expect(row!.everything).not.toContain(body.token.slice(4));
    const [any] = await h.store.sql`select count(*)::int as n from engine_tokens t where row_to_json(t)::text like ${`%${body.token.slice(4, 30)}%`}`;
    expect(any!.n).toBe(0);
  });

  it('the listing of tokens never shows secrets or hashes', async () => {
    const body = (await h.call('POST', '/engine/admin/tokens', { client_name: 'listed' })).json();
    const res = await h.call('GET', '/engine/admin/tokens');
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain(body.token);
    expect(res.body).not.toContain(sha256(body.token));
    expect(res.json().tokens.map((t: { token_id: string }) => t.token_id)).toContain(body.token_id);
  });

  it('issues owner, auditor and agent-bound client tokens', async () => {
    const agent = await h.registerAgent();
    const owner = (await h.call('POST', '/engine/admin/tokens', { client_name: 'ops', role: 'owner' })).json();
    expect(owner.role).toBe('owner');
    expect((await h.call('GET', '/engine/admin/shadow-mode', undefined, owner.token)).statusCode).toBe(200);
    const auditor = (await h.call('POST', '/engine/admin/tokens', { client_name: 'audit', role: 'auditor' })).json();
    expect(auditor.role).toBe('auditor');
    const bound = (await h.call('POST', '/engine/admin/tokens', { client_name: 'bot', agent_ids: [agent.agent_id] })).json();
    expect(bound).toMatchObject({ role: 'client', agent_ids: [agent.agent_id] });
  });

  it('ttl_days sets expires_at; an expired token answers 401', async () => {
    const body = (await h.call('POST', '/engine/admin/tokens', { client_name: 'short-lived', ttl_days: 1 })).json();
    expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBe(86_400_000);
    expect(await canRead(body.token)).toBe(200);
    // A token that expires while it is in this instance's token cache: the expiry is checked on every use.
    const brief = (await h.call('POST', '/engine/admin/tokens', { client_name: 'brief', ttl_days: 1 / 86_400 })).json();
    expect(await canRead(brief.token)).toBe(200);
    await new Promise((r) => setTimeout(r, Date.parse(brief.expires_at) - Date.now() + 50));
    const res = await h.call('GET', '/engine/traces', undefined, brief.token);
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('unauthorized');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
  });

  it('a fractional ttl_days is honoured', async () => {
    const body = (await h.call('POST', '/engine/admin/tokens', { client_name: 'hour', ttl_days: 0.5 })).json();
    expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBe(43_200_000);
  });

  it.each([
    ['no client_name', {}, 'client_name'],
    ['an empty client_name', { client_name: '' }, 'client_name'],
    ['an unknown role', { client_name: 'x', role: 'admin' }, 'role'],
    ['a zero ttl_days', { client_name: 'x', ttl_days: 0 }, 'ttl_days'],
    ['a negative ttl_days', { client_name: 'x', ttl_days: -1 }, 'ttl_days'],
    ['agent_ids that are not uuids', { client_name: 'x', agent_ids: ['bot-1'] }, 'agent_ids[0]'],
    ['an empty agent_ids', { client_name: 'x', agent_ids: [] }, 'agent_ids'],
    ['an unknown field', { client_name: 'x', scopes: ['all'] }, 'scopes'],
    // Postgres text cannot hold NUL: without the check this was a 500.
    ['a NUL in client_name', { client_name: 'desk\u00007' }, 'client_name'],
  ])('422 for %s', async (_name, body, field) => {
    const res = await h.call('POST', '/engine/admin/tokens', body);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
  });
});

describe('DELETE /engine/admin/tokens/{token_id}', () => {
  it('200 {token_id, revoked_at}; the token then answers 401', async () => {
    const issued = (await h.call('POST', '/engine/admin/tokens', { client_name: 'to-revoke' })).json();
    expect(await canRead(issued.token)).toBe(200);
    const res = await h.call('DELETE', `/engine/admin/tokens/${issued.token_id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(Object.keys(res.json()).sort()).toEqual(['revoked_at', 'token_id']);
    expect(res.json().token_id).toBe(issued.token_id);
    expect(Number.isNaN(Date.parse(res.json().revoked_at))).toBe(false);

    const after = await h.call('GET', '/engine/traces', undefined, issued.token);
    expect(after.statusCode).toBe(401);
    expect(after.headers['www-authenticate']).toContain('invalid_token');
    // Revoking again keeps the first revocation time.
    const again = await h.call('DELETE', `/engine/admin/tokens/${issued.token_id}`);
    expect(again.statusCode).toBe(200);
    expect(again.json().revoked_at).toBe(res.json().revoked_at);
  });

  it('a revoked agent token can no longer authorize or bind', async () => {
    const agent = await h.registerAgent();
    const auth = await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token);
    expect(auth.statusCode).toBe(200);
    const [row] = await h.store.sql`select token_id from engine_tokens where token_hash = ${sha256(agent.token)}`;
    expect((await h.call('DELETE', `/engine/admin/tokens/${row!.token_id}`)).statusCode).toBe(200);
    expect((await h.call('POST', '/engine/authorize', h.order(agent.agent_id), agent.token)).statusCode).toBe(401);
    expect(
      (await h.call('POST', '/engine/bind-execution', { trace_id: auth.json().trace_id, exchange_tx_id: 'X', execution_status: 'Filled' }, agent.token))
        .statusCode,
    ).toBe(401);
  });

  it('404 for an unknown token id', async () => {
    const res = await h.call('DELETE', `/engine/admin/tokens/${randomUUID()}`);
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('not_found');
  });

  it('422 for a malformed token id', async () => {
    const res = await h.call('DELETE', '/engine/admin/tokens/not-a-uuid');
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe('token_id');
  });

  it('403 for a non-owner token, and the target token survives', async () => {
    const target = (await h.call('POST', '/engine/admin/tokens', { client_name: 'target' })).json();
    const client = (await h.call('POST', '/engine/admin/tokens', { client_name: 'client' })).json();
    const auditor = (await h.call('POST', '/engine/admin/tokens', { client_name: 'auditor', role: 'auditor' })).json();
    for (const token of [client.token, auditor.token]) {
      const res = await h.call('DELETE', `/engine/admin/tokens/${target.token_id}`, undefined, token);
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('forbidden');
    }
    expect(await canRead(target.token)).toBe(200);
  });
});

describe('token issue needs an owner', () => {
  it('403 for a client or auditor token, 401 without a token', async () => {
    const client = (await h.call('POST', '/engine/admin/tokens', { client_name: 'c' })).json();
    const auditor = (await h.call('POST', '/engine/admin/tokens', { client_name: 'a', role: 'auditor' })).json();
    for (const token of [client.token, auditor.token]) {
      const res = await h.call('POST', '/engine/admin/tokens', { client_name: 'escalate', role: 'owner' }, token);
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('forbidden');
    }
    const none = await h.call('POST', '/engine/admin/tokens', { client_name: 'anon' }, null);
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer /);
    const [count] = await h.store.sql`select count(*)::int as n from engine_tokens where client_name in ('escalate', 'anon')`;
    expect(count!.n).toBe(0);
  });
});

describe('token cache across instances', () => {
  it('a token revoked on another instance stops working here within ENGINE_STATE_REFRESH_MS', async () => {
    const body = (await h.call('POST', '/engine/admin/tokens', { client_name: 'elsewhere' })).json();
    expect(await canRead(body.token)).toBe(200);
    // Another instance revokes it: straight in the store, this instance's cache is not told.
    await h.store.sql`update engine_tokens set revoked_at = now() where token_id = ${body.token_id}`;
    const deadline = Date.now() + 1000;
    let status = 200;
    while (Date.now() < deadline && status === 200) {
      status = await canRead(body.token);
      if (status === 200) await new Promise((r) => setTimeout(r, 25));
    }
    expect(status).toBe(401);
  });
});

/** A Proxy `get` trap that calls `count` on each token lookup (postgres.js `unsafe`) and passes everything else. */
const countingLookups =
  (count: () => void) =>
  (target: Sql, prop: string | symbol, receiver: unknown): unknown =>
    prop === 'unsafe'
      ? (...args: unknown[]) => {
          count();
          return (target.unsafe as (...a: unknown[]) => unknown)(...args);
        }
      : Reflect.get(target, prop, receiver);

describe('token cache', () => {
  it('sees on poll() a revocation committed before the call, even while a read begun earlier is under way', async () => {
    // Token lookups (`unsafe`) are counted; the watermark reads (tagged templates) pass through, except the first
    // one after `hold`: its answer is kept until `release`, as if it were slow.
    let lookups = 0;
    let hold = false;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let answered!: () => void;
    const readAnswered = new Promise<void>((resolve) => (answered = resolve));
    const sql = new Proxy(h.store.sql, {
      get: countingLookups(() => lookups++),
      apply: (target, self, args) => {
        if (!hold) return Reflect.apply(target, self, args);
        hold = false;
        const result = Reflect.apply(target, self, args) as Promise<unknown>;
        return (async () => {
          const rows = await result;
          answered();
          await held;
          return rows;
        })();
      },
    }) as Sql;
    const cache = new TokenCache(sql, 60_000);
    await cache.start();
    try {
      const kept = await issueToken(h.store.sql, { client_name: 'kept-early-read' });
      const other = await issueToken(h.store.sql, { client_name: 'other-early-read' });
      expect((await cache.find(kept.token))?.token_id).toBe(kept.token_id);
      expect(lookups).toBe(1);
      hold = true;
      const early = cache.poll();
      // That read has its answer (the watermark before the revocation) and is still under way.
      await readAnswered;
      await h.store.sql`update engine_tokens set revoked_at = now() where token_id = ${other.token_id}`;
      const after = cache.poll();
      release();
      await Promise.all([early, after]);
      // The call made after the revocation waited for a read of its own, which dropped the entries.
      expect((await cache.find(kept.token))?.token_id).toBe(kept.token_id);
      expect(lookups).toBe(2);
    } finally {
      cache.stop();
    }
  });

  it('keeps a token without a store lookup while no token is revoked, and drops every entry when one is', async () => {
    // Counts the token lookups (postgres.js `unsafe`) the cache makes; the watermark read is a tagged template.
    let lookups = 0;
    const sql = new Proxy(h.store.sql, {
      get: countingLookups(() => lookups++),
    }) as Sql;
    const cache = new TokenCache(sql, 50);
    await cache.start();
    try {
      const kept = await issueToken(h.store.sql, { client_name: 'kept' });
      const other = await issueToken(h.store.sql, { client_name: 'other' });
      expect((await cache.find(kept.token))?.token_id).toBe(kept.token_id);
      expect(lookups).toBe(1);
      // Ten refresh periods later, with no revocation anywhere, the entry is still used.
      await new Promise((r) => setTimeout(r, 500));
      expect((await cache.find(kept.token))?.token_id).toBe(kept.token_id);
      expect(lookups).toBe(1);
      // Another token is revoked (by another instance, in the store): the next refresh drops every entry,
      // so the kept token is looked up again, and the revoked one is refused.
      await h.store.sql`update engine_tokens set revoked_at = now() where token_id = ${other.token_id}`;
      await cache.poll();
      expect((await cache.find(kept.token))?.token_id).toBe(kept.token_id);
      expect(lookups).toBe(2);
      expect(await cache.find(other.token)).toBeNull();
    } finally {
      cache.stop();
    }
  });
});
