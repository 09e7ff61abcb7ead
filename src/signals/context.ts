/**
 * What the regime signal service's routes and jobs share: the store, the settings, the clock, the
 * published-history cache of backtests, the state of the published data (503 `pipeline_lag`), and the usage
 * counter of accounts. Built once per process by `createSignalsContext`.
 */
import type { Sql } from 'postgres';
import type { Config } from '../config.js';
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
  data: DataState;
  usage: UsageCounter;
  /** Stops the context's background work (the usage flush). */
  close(): Promise<void>;
}

export interface SignalsContextOptions {
  now?: () => number;
}

export function createSignalsContext(config: Config, sql: Sql, options: SignalsContextOptions = {}): SignalsContext {
  const now = options.now ?? Date.now;
  const usage = new UsageCounter(sql, now);
  usage.start();
  return {
    sql, config, now,
    history: new PublishedHistoryCache(),
    admissions: new AdmissionCache(config.stateRefreshMs, now),
    data: new DataState(sql, config.stateRefreshMs, now),
    usage,
    close: () => usage.stop(),
  };
}
