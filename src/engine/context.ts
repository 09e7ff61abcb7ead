/**
 * What the engine's routes and jobs share: the store handle, the settings, the policy in force, the shared
 * state (regime broadcast, shadow mode) and the clock. Built once per process by `createEngineContext`.
 */
import type { Sql } from 'postgres';
import type { Config } from '../config.js';
import { loadPolicy, type Policy } from './policy/policy.js';
import { EngineState } from './state.js';
import { TokenCache } from './token-cache.js';

export interface EngineContext {
  sql: Sql;
  config: Config;
  policy: Policy;
  state: EngineState;
  tokens: TokenCache;
  /** Unix ms; injectable so that tests control time. */
  now: () => number;
}

export interface EngineContextOptions {
  policy?: Policy;
  now?: () => number;
}

export async function createEngineContext(config: Config, sql: Sql, options: EngineContextOptions = {}): Promise<EngineContext> {
  const policy = options.policy ?? loadPolicy(config.policyPath);
  const state = new EngineState(sql, config.stateRefreshMs);
  await state.start();
  return { sql, config, policy, state, tokens: new TokenCache(sql, config.stateRefreshMs), now: options.now ?? Date.now };
}
