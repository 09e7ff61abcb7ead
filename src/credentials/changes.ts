/**
 * Where a change of credentials meets the caches of one server process, and what "the change holds" means
 * before a route answers.
 *
 * Each cache that holds credentials (the engine's token cache, the signal service's admission cache)
 * registers what a change does to it. A change reaches them three ways: made here (`held`), told by a
 * sibling worker of `serve --workers N` (`Siblings`), or notified by another server on the database
 * (src/credentials/notify.ts). `held` runs after the change committed and before the answer:
 *
 * 1. it applies the change here;
 * 2. under `serve --workers N` it tells every other worker through the primary and waits until each one
 *    confirms that it applied it too;
 * 3. a worker that does not confirm (hung, or its IPC channel stuck) is waited out instead: the answer waits
 *    until 2 × ENGINE_STATE_REFRESH_MS past the commit, by which time that worker's caches have given up by
 *    their own clock whatever they held from before the change (the admission cache keeps an entry
 *    ENGINE_STATE_REFRESH_MS past the start of the read that made it; the token cache trusts its entries two
 *    refresh periods past the start of its last good read of the revocation watermark). Either way, the
 *    answer never arrives while a worker of this server still admits what the change took away.
 *
 * A worker that dies while it is waited for holds nothing, so it is not waited for.
 */
import { EVERYTHING, type CredentialChange } from './change.js';

export type ApplyChange = (change: CredentialChange) => void;

/** The other workers of this server (src/http/cluster/credential-relay.ts); absent for a server alone. */
export interface Siblings {
  /** What a change told by another worker does here. */
  receive(apply: ApplyChange): void;
  /**
   * Tells every other worker; resolves once each has confirmed, or at `deadline` (unix ms) at the latest,
   * with the workers (or the primary) that did not confirm.
   */
  tell(change: CredentialChange, deadline: number): Promise<string[]>;
}

export interface CredentialChangesOptions {
  /** ENGINE_STATE_REFRESH_MS: the caches' own bound, from which the wait for a silent worker follows. */
  refreshMs: number;
  siblings?: Siblings | null;
  /** Said when a worker did not confirm a change in time (the answer then waited out the bound). */
  warn?: (line: string) => void;
  now?: () => number;
}

export class CredentialChanges {
  private readonly caches: ApplyChange[] = [];
  private readonly now: () => number;

  constructor(private readonly options: CredentialChangesOptions) {
    this.now = options.now ?? Date.now;
    options.siblings?.receive((change) => this.apply(change));
  }

  /** How long past a commit an unconfirmed worker is waited out. */
  get boundMs(): number {
    return 2 * this.options.refreshMs;
  }

  /** Registers a cache that a change must reach. */
  register(apply: ApplyChange): void {
    this.caches.push(apply);
  }

  /** Applies a change to this process's caches (synchronous: the next request sees it). */
  apply(change: CredentialChange): void {
    for (const cache of this.caches) cache(change);
  }

  /** Drops everything cached (after the notification channel was down: changes may have been missed). */
  applyEverything(): void {
    this.apply(EVERYTHING);
  }

  /** After `change` committed: resolves once it holds on every worker of this server (see the module comment). */
  async held(change: CredentialChange): Promise<void> {
    const committedAt = this.now();
    this.apply(change);
    const siblings = this.options.siblings;
    if (!siblings) return;
    const deadline = committedAt + this.boundMs;
    const unconfirmed = await siblings.tell(change, deadline);
    if (unconfirmed.length === 0) return;
    this.options.warn?.(
      `${unconfirmed.join(', ')} did not confirm the credential change (${change.kind}) within ${this.boundMs} ms; the answer waited until their caches expire it by themselves`,
    );
    const rest = deadline - this.now();
    if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
  }
}
