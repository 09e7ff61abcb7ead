/**
 * An in-process cache of token lookups, so that no request pays a store round trip for its token.
 *
 * Tokens change in one way only: they are revoked (`revoked_at` set, never unset; tokens are never deleted).
 * So an entry stays until a revocation is seen: every `refreshMs` (ENGINE_STATE_REFRESH_MS, 250 ms by
 * default) the cache reads the store's revocation watermark (how many tokens are revoked, and the latest
 * revocation time); when it moved, every entry is dropped. A revocation made on another instance, or by the
 * CLI on the store, takes effect here within that time, the same bound as every other piece of shared engine
 * state. That is the bound when a notification is lost: a revocation is also pushed (src/credentials/), to
 * every worker of the server that makes it before it answers, and to other servers by NOTIFY in milliseconds. While the watermark cannot be read (the store
 * is away, or a read is slow) entries live at most two refresh periods past the start of the last good read. Unknown tokens are not
 * cached (so a new token works at once), and expiry is re-checked on every hit.
 */
import type { Sql } from 'postgres';
import { findLiveToken, revocationWatermark, tokenHash, type TokenRecord } from './store/tokens.js';

const MAX_ENTRIES = 10_000;

export class TokenCache {
  private readonly entries = new Map<string, TokenRecord>();
  private watermark: string | null = null;
  /** Entries are trusted until then: two refresh periods past the start of the last good read of the watermark
   * (one period is the next read's due time; the second lets that read finish before anything is dropped). */
  private trustedUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | null = null;
  /** The read that follows the one under way, for callers who came during it. */
  private queued: Promise<void> | null = null;
  /** Counts the clears, so that a lookup begun before one does not put back what it dropped. */
  private generation = 0;

  constructor(
    private readonly sql: Sql,
    private readonly refreshMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Reads the watermark now and then every refresh period. */
  async start(): Promise<void> {
    await this.poll().catch(() => undefined);
    this.timer = setInterval(() => {
      this.poll().catch(() => {
        /* entries age out after trustedUntil; see the module comment */
      });
    }, this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Reads the revocation watermark; drops every entry when it moved. What was committed before the call is seen
   * once it resolves: a read already under way may have begun before, so a caller then waits for the next read,
   * begun after it; callers meanwhile share that one.
   */
  poll(): Promise<void> {
    if (this.polling !== null) {
      this.queued ??= this.polling
        .catch(() => undefined)
        .then(() => {
          this.queued = null;
          return this.poll();
        });
      return this.queued;
    }
    this.polling = (async () => {
      const started = this.now();
      try {
        const mark = await revocationWatermark(this.sql);
        if (mark !== this.watermark) {
          this.clear();
          this.watermark = mark;
        }
        this.trustedUntil = started + 2 * this.refreshMs;
      } finally {
        this.polling = null;
      }
    })();
    return this.polling;
  }

  async find(token: string): Promise<TokenRecord | null> {
    const key = tokenHash(token);
    const t = this.now();
    if (t >= this.trustedUntil && this.entries.size > 0) this.clear();
    const hit = this.entries.get(key);
    if (hit && (!hit.expires_at || hit.expires_at.getTime() > t)) return hit;
    const generation = this.generation;
    const record = await findLiveToken(this.sql, token);
    if (record && generation === this.generation && this.now() < this.trustedUntil) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(key, record);
    } else {
      this.entries.delete(key);
    }
    return record;
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
