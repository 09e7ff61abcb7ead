/**
 * What the engine's routes and jobs share: the store handle, the settings, the policy in force, the shared
 * state (regime broadcast, shadow mode), the keyring of personal data and the clock. Built once per process by
 * `createEngineContext`, which refuses to start with key settings that cannot read the store's keys.
 */
import type { Sql } from 'postgres';
import type { Config } from '../core/config.js';
import type { DataKeys } from '../secrets/kms/data-keys.js';
import { checkKeyring, dataKeysFrom } from '../secrets/kms/from-config.js';
import { loadPolicy, type Policy } from './policy/policy.js';
import { isStoreFault } from '../store/faults.js';
import { CredentialChanges } from '../credentials/changes.js';
import { EngineState } from './state.js';
import { TokenCache } from './token-cache.js';
import { AgentCache } from './agent-cache.js';
import { SealedTraces } from './sealed-cache.js';
import { engineBatching, type EngineBatching } from './store/batching.js';

export interface EngineContext {
  sql: Sql;
  config: Config;
  policy: Policy;
  state: EngineState;
  tokens: TokenCache;
  /** Where a token revocation is made to hold before it is answered (src/credentials/changes.ts). */
  changes: CredentialChanges;
  /** What this process last read of agents that may take authorize's short path (./agent-cache.ts). */
  agents: AgentCache;
  /** What this process sealed of its recent traces, for bind's short path (./sealed-cache.ts). */
  sealed: SealedTraces;
  /** Authorize's and bind's batched statements (./store/batching.ts). */
  batching: EngineBatching;
  /** The per-agent data keys of personal data; null without a key-management provider (`KMS_PROVIDER`). */
  keys: DataKeys | null;
  /** Unix ms; injectable so that tests control time. */
  now: () => number;
}

export interface EngineContextOptions {
  policy?: Policy;
  now?: () => number;
  /** The server's credential changes (shared with the signal service and the other workers); one of its own by default. */
  changes?: CredentialChanges;
}

export async function createEngineContext(config: Config, sql: Sql, options: EngineContextOptions = {}): Promise<EngineContext> {
  const policy = options.policy ?? loadPolicy(config.policyPath);
  const keys = dataKeysFrom(config);
  // A store that does not answer now is not a key problem: health says so, and a server migrates (and so
  // fails) before it builds the engine; any other fault of the check stops the start.
  await checkKeyring(sql, keys).catch((err: unknown) => {
    if (!isStoreFault(err)) throw err;
  });
  const state = new EngineState(sql, config.stateRefreshMs);
  await state.start();
  const tokens = new TokenCache(sql, config.stateRefreshMs);
  await tokens.start();
  const changes = options.changes ?? new CredentialChanges({ refreshMs: config.stateRefreshMs });
  // The cache holds no more than which tokens are live: any revocation (or a change it cannot read) drops it all.
  changes.register((change) => {
    if (change.kind === 'engine_token' || change.kind === 'everything') tokens.clear();
  });
  return {
    sql,
    config,
    policy,
    state,
    tokens,
    changes,
    agents: new AgentCache(),
    sealed: new SealedTraces(),
    batching: engineBatching(sql, config.batchInFlight),
    keys,
    now: options.now ?? Date.now,
  };
}
