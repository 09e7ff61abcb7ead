/**
 * Admissions of keys, cached briefly in process per key and address, so that a keyed route costs its own
 * store round trip and at most one more for the key.
 *
 * What a hit skips is the store's re-check of the key: revocation, tier, and the IP lock, for at most `ttlMs`
 * (ENGINE_STATE_REFRESH_MS, 250 ms by default), the same bound the engine gives its token cache and shared
 * state, so a revocation or a new tier reaches every server within it. A hit is only for the address the
 * entry was made from: a request from another address goes to the store, which applies the IP lock, and a miss
 * every `ttlMs` keeps the key's last use fresh there (store/keys.ts refreshes it every 10 s). A hit does not
 * skip the rate limit: a key of a limited tier (free, starter) still has every request counted in its rolling
 * window in the store, exactly (`countRequest`). Entries are keyed by the key's SHA-256 and the address,
 * never by the secret.
 */
import type { KeyRecord } from './store/keys.js';

const MAX_ENTRIES = 10_000;

export class AdmissionCache {
  private readonly entries = new Map<string, { key: KeyRecord; until: number }>();

  constructor(private readonly ttlMs: number, private readonly now: () => number = Date.now) {}

  get(hash: string, ip: string): KeyRecord | null {
    const hit = this.entries.get(`${hash} ${ip}`);
    return hit && hit.until > this.now() ? hit.key : null;
  }

  /** Remembers an admitted key. */
  remember(hash: string, ip: string, key: KeyRecord): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(`${hash} ${ip}`, { key, until: this.now() + this.ttlMs });
  }

  /** Forgets a key at once on this server (a rotation or revocation made here). */
  forget(hash: string): void {
    for (const k of this.entries.keys()) if (k.startsWith(`${hash} `)) this.entries.delete(k);
  }

  /** Forgets the keys matching `which` (an operator's revocation or tier change, made through this server). */
  forgetWhere(which: (key: KeyRecord) => boolean): void {
    for (const [k, entry] of this.entries) if (which(entry.key)) this.entries.delete(k);
  }
}
