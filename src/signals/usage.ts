/**
 * Requests per key and UTC day, for the account's `usage.today_requests`: counted in this process and written
 * to the store (`signal_usage_days`) once a second in one statement, so a busy key does not write a row on
 * every request (the rate limit itself is exact and lives in the admission statement, store/keys.ts). Other
 * instances add their own counts; a reader sees the stored sum plus this process's unwritten counts.
 */
import type { Sql } from 'postgres';

export const USAGE_FLUSH_MS = 1000;

const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export class UsageCounter {
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush().catch(() => {}), USAGE_FLUSH_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush().catch(() => {});
  }

  count(keyId: string): void {
    const k = `${keyId}|${utcDay(this.now())}`;
    this.pending.set(k, (this.pending.get(k) ?? 0) + 1);
  }

  /** Writes the counts gathered so far; counts that fail to write are kept for the next flush. */
  flush(): Promise<void> {
    // After a failed flush too: a rejected chain would skip every later flush.
    this.flushing = this.flushing
      .catch(() => {})
      .then(async () => {
        if (this.pending.size === 0) return;
        const batch = this.pending;
        this.pending = new Map();
        const rows = [...batch].map(([k, n]) => {
          const [key_id, day] = k.split('|') as [string, string];
          return { key_id, day, requests: n };
        });
        try {
          await this.sql`
          insert into signal_usage_days ${this.sql(rows, 'key_id', 'day', 'requests')}
          on conflict (key_id, day) do update set requests = signal_usage_days.requests + excluded.requests`;
        } catch (err) {
          for (const [k, n] of batch) this.pending.set(k, (this.pending.get(k) ?? 0) + n);
          throw err;
        }
      });
    return this.flushing;
  }

  /** Today's requests of the keys of an account: stored, plus this process's unwritten counts. */
  async today(keyIds: readonly string[]): Promise<number> {
    if (keyIds.length === 0) return 0;
    // A batch being written is in neither place until its statement ends: wait for it (it ends in the store, or
    // back in `pending`), then read `pending` before the store, so a flush that starts meanwhile is not missed.
    await this.flushing.catch(() => {});
    const day = utcDay(this.now());
    let local = 0;
    for (const id of keyIds) local += this.pending.get(`${id}|${day}`) ?? 0;
    const [row] = await this.sql<Array<{ n: number }>>`
      select coalesce(sum(requests), 0)::int as n from signal_usage_days where key_id = any(${keyIds as string[]}::uuid[]) and day = ${day}`;
    return (row?.n ?? 0) + local;
  }
}
