/**
 * The webhook worker: runs in every server that serves the signal service, and delivers due deliveries
 * from the queue in Postgres (store.ts). Several servers share the queue safely: a delivery is claimed by
 * one worker at a time (`for update skip locked` and a lease), so it is never sent twice at once.
 *
 * A receiver has a delivery only once it answers 2xx. Any other outcome (another status, a refused target,
 * a connection error, no answer within the deadline) is retried after an exponential backoff, 5 s, 10 s,
 * 20 s … doubling up to 1 hour, until `maxAttempts` attempts have failed; the delivery is then marked
 * failed and kept. A delivery survives a restart: it is a row, and the next worker (on this server or
 * another) picks it up. Stopping aborts attempts in flight and hands them back, due at once.
 * The worker never throws: a failed round is logged and the next one runs after the poll interval.
 */
import type { Sql } from 'postgres';
import { allows } from '../tiers.js';
import { sendWebhook, type WebhookEvent } from './send.js';
import type { SecretKeeper } from '../../secrets/stored-secret.js';
import { claimDue, release, settle, webhookSecret, type ClaimedDelivery, type Outcome } from './store.js';
import type { Resolve } from './target-guard.js';
import { queueRegimeChanges } from './regime-change.js';

export interface RetrySchedule {
  /** Delay after the first failed attempt. */
  baseMs: number;
  /** The delay doubles after each failure up to this. */
  capMs: number;
  /** Attempts in all; after this many failures the delivery is marked failed. */
  maxAttempts: number;
}

/** 5 s, 10 s, 20 s … 1 h, 20 attempts: about 10.4 hours from the first attempt to the last. */
export const DEFAULT_RETRY: RetrySchedule = Object.freeze({ baseMs: 5_000, capMs: 3_600_000, maxAttempts: 20 });

/** The wait after failed attempt number `attempt` (1-based). Pure. */
export const retryDelayMs = (attempt: number, schedule: RetrySchedule): number =>
  Math.min(schedule.capMs, schedule.baseMs * 2 ** Math.min(Math.max(0, attempt - 1), 40));

export interface WebhookWorkerOptions {
  /** WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  /** What opens the webhooks' secrets (sealed under the key-management provider when one is configured). */
  secrets: SecretKeeper;
  /** How often the queue is polled when it has nothing due. Default 1 s. */
  pollMs?: number;
  retry?: RetrySchedule;
  /** Deadline of one attempt. Default 10 s. */
  timeoutMs?: number;
  /** How long a claim holds a delivery; longer than an attempt. Default `timeoutMs` + 30 s. */
  leaseMs?: number;
  /** Deliveries attempted at once by one worker. Default 10. */
  batch?: number;
  resolve?: Resolve;
  log?: (msg: string, err?: unknown) => void;
}

export interface WebhookWorker {
  /** Runs one round now (claims and attempts what is due); the number of deliveries attempted. */
  runOnce(): Promise<number>;
  /** Stops polling, aborts attempts in flight (handed back, due at once) and waits for the round to end. */
  stop(): Promise<void>;
}

export function startWebhookWorker(sql: Sql, options: WebhookWorkerOptions): WebhookWorker {
  const pollMs = options.pollMs ?? 1_000;
  const retry = options.retry ?? DEFAULT_RETRY;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const leaseMs = options.leaseMs ?? timeoutMs + 30_000;
  const batch = options.batch ?? 10;
  const log = options.log ?? (() => {});
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<number> | null = null;

  async function attempt(d: ClaimedDelivery): Promise<void> {
    let outcome: Outcome;
    if (d.url === null || (d.secret === null && d.secret_sealed === null)) {
      outcome = { kind: 'failed', status: null, error: 'the webhook was removed' };
    } else if (!allows(d.tier, 'pro')) {
      outcome = { kind: 'failed', status: null, error: `the account's tier (${d.tier}) no longer includes the webhook` };
    } else {
      // A secret that cannot be opened now (the key-management provider unreachable) is a failed attempt, retried.
      const secret = await webhookSecret(options.secrets, d.account_id, d).catch((err: unknown) => err as Error);
      const r =
        secret instanceof Error
          ? { delivered: false, status: null, error: `the webhook secret could not be opened: ${secret.message}`, aborted: false }
          : await sendWebhook(
              { url: d.url, secret },
              { deliveryId: d.delivery_id, event: d.event as WebhookEvent, body: JSON.stringify(d.payload) },
              {
                allowPrivate: options.allowPrivate,
                timeoutMs,
                signal: stopping.signal,
                ...(options.resolve ? { resolve: options.resolve } : {}),
              },
            );
      if (r.aborted) {
        await release(sql, d.delivery_id, d.attempts, r.error ?? 'the server stopped during the attempt');
        return;
      }
      outcome = r.delivered
        ? { kind: 'delivered', status: r.status! }
        : d.attempts >= retry.maxAttempts
          ? { kind: 'failed', status: r.status, error: `${r.error} (attempt ${d.attempts} of ${retry.maxAttempts}, the last)` }
          : { kind: 'retry', status: r.status, error: r.error ?? 'not delivered', delayMs: retryDelayMs(d.attempts, retry) };
    }
    if (!(await settle(sql, d.delivery_id, d.attempts, outcome))) {
      log(`webhook worker: delivery ${d.delivery_id} was claimed again before attempt ${d.attempts} was recorded (the attempt outlived its lease)`);
    } else if (outcome.kind === 'failed') {
      log(`webhook worker: delivery ${d.delivery_id} failed: ${outcome.error}`);
    }
  }

  async function runRound(): Promise<number> {
    if (stopping.signal.aborted) return 0;
    // The regime broadcasts committed since the last round become their deliveries first (the subscription).
    await queueRegimeChanges(sql);
    const claimed = await claimDue(sql, batch, leaseMs);
    const results = await Promise.allSettled(claimed.map(attempt));
    for (const r of results) if (r.status === 'rejected') log('webhook worker: recording an attempt failed', r.reason);
    return claimed.length;
  }

  const runOnce = (): Promise<number> => {
    // One round at a time per worker; a caller during a round waits for it and runs the next.
    const previous = round ?? Promise.resolve(0);
    const next = previous.catch(() => 0).then(runRound);
    round = next;
    void next
      .finally(() => {
        if (round === next) round = null;
      })
      .catch(() => {});
    return next;
  };

  const loop = (): void => {
    timer = undefined;
    runOnce()
      .catch((err: unknown) => {
        log('webhook worker: a round failed; retrying after the poll interval', err);
        return 0;
      })
      .then(
        (n) => {
          // A full batch suggests more is due: go on at once.
          if (!stopping.signal.aborted) timer = setTimeout(loop, n >= batch ? 0 : pollMs);
          timer?.unref();
        },
        () => {},
      );
  };
  loop();

  return {
    runOnce,
    async stop() {
      if (stopping.signal.aborted) return;
      stopping.abort();
      if (timer) clearTimeout(timer);
      await round?.catch(() => {});
    },
  };
}
