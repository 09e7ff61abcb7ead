/**
 * Credential changes between servers on one database: NOTIFY in the transaction of the change, LISTEN in
 * every server.
 *
 * `notifyChange` runs inside the change's transaction (`pg_notify` is transactional: the notification is sent
 * when, and only if, the transaction commits, and in commit order), so a server never drops its caches for a
 * change that was rolled back, and a change made by a command on the store (`tradeseal engine tokens revoke`)
 * reaches the servers as fast as one made through one of them.
 *
 * `listenForChanges` applies each notification to the server's caches, typically milliseconds after the
 * commit. While its connection is down (a store outage) notifications are lost: it drops everything cached
 * when it listens again, and meanwhile the caches' own bound (ENGINE_STATE_REFRESH_MS: the token cache's
 * watermark poll, the admission cache's lifetime) still holds. The embedded store has one server process,
 * which makes its own changes; a command's change on it reaches that server within the caches' bound.
 */
import type { SqlOrTx } from '../store/transaction.js';
import { listenTo, type Listening } from '../store/listener.js';
import { CREDENTIALS_CHANNEL, decodeChange, encodeChange, type CredentialChange } from './change.js';
import type { CredentialChanges } from './changes.js';

/** Sends `change` to every listening server when the caller's transaction commits. */
export async function notifyChange(tx: SqlOrTx, change: CredentialChange): Promise<void> {
  await tx`select pg_notify(${CREDENTIALS_CHANNEL}, ${encodeChange(change)})`;
}

export interface ListenLog {
  warn(line: string): void;
  info(line: string): void;
}

export function listenForChanges(url: string, changes: CredentialChanges, log: ListenLog, options: { connectTimeoutMs?: number } = {}): Listening {
  let lost = false;
  return listenTo(
    url,
    CREDENTIALS_CHANNEL,
    {
      onNotify: (payload) => changes.apply(decodeChange(payload)),
      onListen: () => {
        // Whatever was notified while nobody listened is unknown: drop it all (the first time, nothing is cached yet).
        changes.applyEverything();
        if (lost) log.info('credential change notifications are received again');
        lost = false;
      },
      onLost: (err) => {
        if (lost) return;
        lost = true;
        log.warn(
          `credential change notifications are not received (${err instanceof Error ? err.message : String(err)}); until they are, other servers' changes reach this one within ENGINE_STATE_REFRESH_MS`,
        );
      },
    },
    options,
  );
}
