/**
 * A short-lived, in-process cache of token lookups, so the authorize hot path does not pay a store round
 * trip for the token on every request. An entry lives `ttlMs` (ENGINE_STATE_REFRESH_MS, 250 ms by default):
 * a revocation made on another instance takes effect here within that time, the same bound as every other
 * piece of shared engine state; the instance that revokes drops its cache at once. Unknown tokens are not
 * cached (so a new token works at once), and expiry is re-checked on every hit.
 */
import type { Sql } from 'postgres';
import { findLiveToken, tokenHash, type TokenRecord } from './store/tokens.js';

const MAX_ENTRIES = 10_000;

export class TokenCache {
  private readonly entries = new Map<string, { record: TokenRecord; until: number }>();

  constructor(private readonly sql: Sql, private readonly ttlMs: number, private readonly now: () => number = Date.now) {}

  async find(token: string): Promise<TokenRecord | null> {
    const key = tokenHash(token);
    const t = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > t && (!hit.record.expires_at || hit.record.expires_at.getTime() > t)) return hit.record;
    const record = await findLiveToken(this.sql, token);
    if (record) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(key, { record, until: t + this.ttlMs });
    } else {
      this.entries.delete(key);
    }
    return record;
  }

  clear(): void {
    this.entries.clear();
  }
}
