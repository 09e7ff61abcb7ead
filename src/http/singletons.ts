/**
 * A server's background jobs: the expiry sweeper, the transparency log's sequencer and the audit chain's
 * anchorer (engine), the webhook worker and the housekeeping (signal service). Each is safe in several
 * processes at once (the sweeper's and the housekeeping's statements are idempotent, the sequencer and the
 * anchorer take turns through their advisory locks, the webhook worker claims each delivery with `for update
 * skip locked` and a lease), so a brief overlap while leadership changes hands does no harm.
 *
 * A server alone (`serve`, `serve --workers 1`) runs them itself. The workers of `serve --workers N` elect
 * one of them on the database (src/store/leader.ts) and only that one runs them: N sweepers every minute
 * would do the same work N times, and N pollers of the queue and the log would cost N round trips a tick.
 */
import type { Sql } from 'postgres';
import type { Config } from '../core/config.js';
import { startAnchorer } from '../engine/audit/anchorer.js';
import { startSequencer } from '../engine/sequencer.js';
import { startSweeper, sweepComparison } from '../engine/sweeper.js';
import { secretKeeperFrom } from '../secrets/stored-secret.js';
import { isStoreUnavailable } from '../store/faults.js';
import { startWebhookWorker, type WebhookWorkerOptions } from '../signals/webhooks/worker.js';
import { startSignalsHousekeeping } from '../signals/housekeeping.js';
import type { ServiceName } from './app.js';
import type { ServerMetrics } from './metrics.js';

export interface SingletonLog {
  info(msg: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

export interface SingletonOptions {
  services: readonly ServiceName[];
  metrics: ServerMetrics;
  log: SingletonLog;
  webhooks?: Omit<WebhookWorkerOptions, 'allowPrivate' | 'log' | 'secrets'>;
}

/** A background job's failure: a warning while the store is away (each job retries at its next tick), else an error. */
const faultLevel = (err: unknown): 'warn' | 'error' => (isStoreUnavailable(err) ? 'warn' : 'error');

/** Starts the jobs of the services served; the returned function stops them and waits for work under way. */
export function startSingletons(sql: Sql, config: Config, options: SingletonOptions): () => Promise<void> {
  const { log, metrics, services } = options;
  const report =
    (fallback: 'info' | 'warn') =>
    (msg: string, err?: unknown): void => {
      if (err) log[faultLevel(err)]({ err }, msg);
      else if (fallback === 'info') log.info(msg);
      else log.warn(msg);
    };
  const stops: Array<() => void | Promise<void>> = [];
  if (services.includes('engine')) {
    stops.push(startSweeper(sql, Date.now, config.traceExpiryMs, report('info'), (r) => metrics.sweep(r), sweepComparison(config)));
    // The transparency log's sequencer: committed traces' leaves reach the log within a second.
    stops.push(startSequencer(sql, config, { log: report('warn') }));
    // Signed checkpoints of the audit chain's head: an entry is anchored within about a second of its commit.
    stops.push(startAnchorer(sql, config, { log: report('warn') }));
  }
  if (services.includes('signals')) {
    const worker = startWebhookWorker(sql, {
      ...options.webhooks,
      allowPrivate: config.webhookAllowPrivate,
      secrets: secretKeeperFrom(config),
      log: report('warn'),
    });
    stops.push(() => worker.stop());
    // Expired codes and mail past OUTBOX_RETENTION_HOURS out of the outbox, and client addresses out of the hourly registration count.
    stops.push(startSignalsHousekeeping(sql, config, report('warn')));
  }
  metrics.leader.set(1);
  let stopping: Promise<void> | undefined;
  return () =>
    (stopping ??= (async () => {
      for (const stop of stops) await stop();
      metrics.leader.set(0);
    })());
}
