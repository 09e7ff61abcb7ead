/**
 * API-key authentication of the regime signal service (docs/decisions/0018-signal-keys-and-tiers.md,
 * docs/decisions/0020-rate-limit-and-ip-lock.md). Every keyed request is admitted by one statement (store/keys.ts):
 * a missing or unknown key is 401; a revoked key 403 `key_revoked`; a key used from
 * another address within 15 minutes 403 `ip_locked` (with `error: "ip_locked"`); a key past its tier's requests per
 * rolling 24 hours 429 `rate_limited` with `X-RateLimit-Reset` (UTC epoch seconds); a tier below the endpoint's
 * access 403 `tier_insufficient`. Every keyed response carries `X-RateLimit-Limit` and `X-RateLimit-Remaining`
 * (`unlimited` for tiers without a limit). Runs before validation, so a stranger learns nothing of the parameters.
 * Admissions are cached per key and address for ENGINE_STATE_REFRESH_MS (admission-cache.ts): a key without a daily
 * limit then costs no store round trip, a limited one only the count of its request in its window. A change of the
 * key or its account is applied to that cache before it is answered (src/credentials/changes.ts).
 */
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { forbidden, TradesealError, unauthorized } from '../core/errors.js';
import type { SignalsContext } from './context.js';
import { admit, countRequest, keyHash, type KeyRecord } from './store/keys.js';
import { allows, TIER_SPECS, type Access } from './tiers.js';

declare module 'fastify' {
  interface FastifyRequest {
    signalsKey?: KeyRecord;
  }
}

export const KEY_HEADER = 'x-signals-key';

const ACCESS_WORDS: Record<Access, string> = {
  key: 'any key',
  starter: 'a Starter or Pro key',
  pro: 'a Pro key',
  engine: 'an engine tier key (engine_sidecar, engine_audit or owner)',
  engine_audit: 'an engine_audit key',
  owner: 'an owner key',
};

export function requireKey(ctx: SignalsContext, access: Access): onRequestAsyncHookHandler {
  return async function authenticate(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const header = req.headers[KEY_HEADER];
    if (typeof header !== 'string' || header.trim() === '') throw unauthorized('an API key is required: X-Signals-Key: rsk_…');
    const secret = header.trim();
    const hash = keyHash(secret);
    const cached = ctx.admissions.get(hash, req.ip);
    if (cached) {
      const limit = TIER_SPECS[cached.tier].dailyLimit;
      if (limit === null) {
        void reply.header('x-ratelimit-limit', 'unlimited').header('x-ratelimit-remaining', 'unlimited');
        return accept(cached);
      }
      const counted = await countRequest(ctx.sql, cached.key_id, limit);
      if (!counted.ok) throw rateLimited(cached, limit, counted.resets_at);
      void reply.header('x-ratelimit-limit', String(limit)).header('x-ratelimit-remaining', String(counted.remaining));
      return accept(cached);
    }
    // Before the store is asked: a change applied while it answers voids what it says (admission-cache.ts).
    const ticket = ctx.admissions.ticket();
    const a = await admit(ctx.sql, secret, req.ip);
    if (!a.ok) {
      switch (a.why) {
        case 'unknown':
          throw unauthorized('the API key is unknown');
        case 'revoked':
          throw new TradesealError('key_revoked', `the API key ${a.key.key_prefix}… was revoked`, {
            hint: 'use the key that replaced it, or ask for a new one',
          });
        case 'ip_locked':
          throw forbidden(
            'ip_locked',
            `the API key was used from another address less than 15 minutes ago; it unlocks at ${a.unlocks_at.toISOString()} if unused`,
            { error: 'ip_locked' },
          );
        case 'rate_limited':
          throw rateLimited(a.key, a.limit, a.resets_at);
      }
    }
    void reply
      .header('x-ratelimit-limit', a.limit === null ? 'unlimited' : String(a.limit))
      .header('x-ratelimit-remaining', a.remaining === null ? 'unlimited' : String(a.remaining));
    ctx.admissions.remember(hash, req.ip, a.key, ticket);
    return accept(a.key);

    function rateLimited(key: KeyRecord, limit: number, resetsAt: Date): TradesealError {
      void reply
        .header('x-ratelimit-limit', String(limit))
        .header('x-ratelimit-remaining', '0')
        .header('x-ratelimit-reset', String(Math.ceil(resetsAt.getTime() / 1000)));
      return new TradesealError(
        'rate_limited',
        `the key made ${limit} requests in the last 24 hours, its ${TIER_SPECS[key.tier].label} tier's limit; the next one frees up at ${resetsAt.toISOString()}`,
      );
    }

    function accept(key: KeyRecord): void {
      ctx.usage.count(key.key_id);
      if (!allows(key.tier, access)) {
        throw new TradesealError('tier_insufficient', `this endpoint needs ${ACCESS_WORDS[access]}; the key's tier is ${key.tier}`, {
          hint: 'see the tiers in the README; an operator changes a tier with `tradeseal signals keys set-tier`',
        });
      }
      req.signalsKey = key;
    }
  };
}
