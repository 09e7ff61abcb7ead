/**
 * The shared state every engine instance enforces: the regime broadcast in force and shadow mode.
 *
 * Both live in Postgres so that N instances behind a load balancer give the same answers. Each instance
 * re-reads them every `ENGINE_STATE_REFRESH_MS` (250 ms by default), so a new broadcast or a shadow-mode
 * change reaches every instance within a second without a query on the authorize hot path. The instance
 * that makes a change sees it at once. A failed refresh keeps the last state; the policy's maximum regime
 * age still fails closed if the store stays away.
 */
import type { Sql } from 'postgres';
import { currentRegime, type RegimeBroadcast } from '../store/regime-broadcasts.js';
import { readShadowMode, type ShadowMode } from './store/shadow.js';

export class EngineState {
  private regimeValue: RegimeBroadcast | null = null;
  private shadowValue: ShadowMode = { enabled: false, reason: null, changed_at: null, changed_by: null };
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | null = null;
  /** Counts this instance's own changes, so that a read begun before one cannot undo it (see `refresh`). */
  private adopted = 0;

  constructor(
    private readonly sql: Sql,
    private readonly refreshMs: number,
  ) {}

  /** Loads the state and starts refreshing. A store that is down at start leaves the state empty (fail closed). */
  async start(): Promise<void> {
    await this.refresh().catch(() => undefined);
    this.timer = setInterval(() => {
      this.refresh().catch(() => {
        /* keep the last known state; see the module comment */
      });
    }, this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Re-reads both from the store; concurrent callers share one read. */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      const generation = this.adopted;
      try {
        const [regime, shadow] = await Promise.all([currentRegime(this.sql), readShadowMode(this.sql)]);
        // A read that began before this instance adopted its own change is older than that change: drop it
        // (the next refresh brings anything else), or a kill-switch broadcast could be undone for a while.
        if (generation !== this.adopted) return;
        this.regimeValue = regime;
        this.shadowValue = shadow;
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  get regime(): RegimeBroadcast | null {
    return this.regimeValue;
  }

  get shadow(): ShadowMode {
    return this.shadowValue;
  }

  /** Adopts a change this instance just wrote, without waiting for the next refresh. */
  adoptRegime(b: RegimeBroadcast): void {
    this.adopted++;
    if (!this.regimeValue || b.id >= this.regimeValue.id) this.regimeValue = b;
  }

  adoptShadow(s: ShadowMode): void {
    this.adopted++;
    this.shadowValue = s;
  }
}
