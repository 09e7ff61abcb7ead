/**
 * What the regime signal service's routes and jobs share: the store, the settings, the clock, the
 * published-history cache of backtests, the state of the published data (503 `pipeline_lag`), and the usage
 * counter of accounts. Built once per process by `createSignalsContext`.
 */
import type { Sql } from 'postgres';
import type { Config } from '../core/config.js';
import { CredentialChanges } from '../credentials/changes.js';
import type { CredentialChange } from '../credentials/change.js';
import { AdmissionCache } from './admission-cache.js';
import { DataState } from './data-state.js';
import { PublishedHistoryCache } from './history-cache.js';
import { UsageCounter } from './usage.js';

export interface SignalsContext {
  sql: Sql;
  config: Config;
  /** Unix ms; injectable so that tests control time. */
  now: () => number;
  history: PublishedHistoryCache;
  /** Admissions of unlimited keys, for ENGINE_STATE_REFRESH_MS (see admission-cache.ts). */
  admissions: AdmissionCache;
  /** Where a rotation, revocation or tier change is made to hold before it is answered (src/credentials/changes.ts). */
  changes: CredentialChanges;
  data: DataState;
  usage: UsageCounter;
  /** Stops the context's background work (the usage flush). */
  close(): Promise<void>;
}

export interface SignalsContextOptions {
  now?: () => number;
  /** The server's credential changes (shared with the engine and the other workers); one of its own by default. */
  changes?: CredentialChanges;
}

/** What a credential change does to the admission cache. */
export function applyToAdmissions(admissions: AdmissionCache, change: CredentialChange): void {
  switch (change.kind) {
    case 'signals_key':
      return admissions.forgetWhere((key) => key.key_id === change.key_id);
    case 'signals_account':
      return admissions.forgetWhere((key) => key.account_id === change.account_id);
    case 'everything':
      return admissions.forgetWhere(() => true);
    case 'engine_token':
      return;
  }
}

export function createSignalsContext(config: Config, sql: Sql, options: SignalsContextOptions = {}): SignalsContext {
  const now = options.now ?? Date.now;
  const usage = new UsageCounter(sql, now);
  usage.start();
  const admissions = new AdmissionCache(config.stateRefreshMs, now);
  const changes = options.changes ?? new CredentialChanges({ refreshMs: config.stateRefreshMs });
  changes.register((change) => applyToAdmissions(admissions, change));
  return {
    sql,
    config,
    now,
    changes,
    history: new PublishedHistoryCache(),
    admissions,
    data: new DataState(sql, config.stateRefreshMs, now),
    usage,
    close: () => usage.stop(),
  };
}
