/**
 * Admissions of keys, cached briefly in process per key and address, so that a keyed route costs its own
 * store round trip and at most one more for the key.
 *
 * What a hit skips is the store's re-check of the key: revocation, tier, and the IP lock, for at most `ttlMs`
 * (ENGINE_STATE_REFRESH_MS, 250 ms by default) past the start of the store read that made the entry. A
 * change of a key or an account (a rotation, a revocation, a tier change) is applied to this cache before it
 * is answered, on every worker of the server that makes it, and on other servers when its notification
 * arrives (src/credentials/); the lifetime is the bound when a notification is lost.
 *
 * A change must not be undone by a read that began before it: a request admitted by the store just before a
 * rotation committed would otherwise remember the old key after the rotation forgot it, and the old key would
 * be admitted for another `ttlMs`. So a lookup takes a `ticket` before it asks the store, and `remember`
 * keeps nothing when any change was applied since that ticket (one counter for all changes: a change is rare,
 * and what it costs is one more store read per key in flight).
 *
 * A hit is only for the address the entry was made from: a request from another address goes to the store,
 * which applies the IP lock, and a miss every `ttlMs` keeps the key's last use fresh there (store/keys.ts
 * refreshes it every 10 s). A hit does not skip the rate limit: a key of a limited tier (free, starter) still
 * has every request counted in its rolling window in the store, exactly (`countRequest`). Entries are keyed
 * by the key's SHA-256 and the address, never by the secret.
 */
import type { KeyRecord } from './store/keys.js';

const MAX_ENTRIES = 10_000;

/** Taken before the store is asked about a key (`AdmissionCache.ticket`). */
export interface AdmissionTicket {
  /** How many changes had been applied. */
  readonly generation: number;
  /** When the read began: the entry's lifetime counts from here. */
  readonly at: number;
}

export class AdmissionCache {
  private readonly entries = new Map<string, { key: KeyRecord; until: number }>();
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(hash: string, ip: string): KeyRecord | null {
    const hit = this.entries.get(`${hash} ${ip}`);
    return hit && hit.until > this.now() ? hit.key : null;
  }

  /** Taken before the store read whose result may be remembered. */
  ticket(): AdmissionTicket {
    return { generation: this.generation, at: this.now() };
  }

  /** Remembers an admitted key, unless a change was applied since `ticket` was taken (see the module comment). */
  remember(hash: string, ip: string, key: KeyRecord, ticket: AdmissionTicket): void {
    if (ticket.generation !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(`${hash} ${ip}`, { key, until: ticket.at + this.ttlMs });
  }

  /** Forgets the keys matching `which` (a rotation, revocation or tier change), and voids every ticket taken before. */
  forgetWhere(which: (key: KeyRecord) => boolean): void {
    this.generation++;
    for (const [k, entry] of this.entries) if (which(entry.key)) this.entries.delete(k);
  }
}
