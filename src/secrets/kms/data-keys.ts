/**
 * The engine's keyring: per-agent data keys, made and unwrapped by the key-management provider
 * (./provider.ts), stored only wrapped (src/secrets/kms/data-key-rows.ts), and cached unwrapped in process
 * memory so that authorize pays no provider call after an agent's first order.
 *
 * The cache is bounded (least recently used out beyond `maxEntries`, 1024 by default) and an entry is used
 * for at most `ttlMs` (15 minutes) after it was unwrapped, then dropped (on its next lookup, or when another
 * key is cached): a key does not stay in use for longer than its agent is busy. An erasure
 * evicts its agent's key here; another engine process may still hold it in its cache until the TTL runs
 * out, but the erasure deleted every ciphertext of that agent and an erased agent cannot authorize, so
 * there is nothing left for that copy to decrypt or encrypt.
 *
 * At start `checkStore` unwraps one stored key of each (provider, key id): a master key file that is not the
 * one the store's keys were wrapped under stops the engine then, with `config_invalid`, instead of failing
 * the first read of a trace.
 */
import { TradesealError } from '../../core/errors.js';
import type { SqlOrTx } from '../../store/transaction.js';
import { getDataKey, insertDataKey, liveKeySamples, type StoredDataKey } from './data-key-rows.js';
import type { KeyProvider } from './provider.js';

export interface DataKeysOptions {
  maxEntries?: number;
  ttlMs?: number;
  now?: () => number;
}

const DEFAULT_MAX_ENTRIES = 1024;
const DEFAULT_TTL_MS = 15 * 60_000;

export class DataKeys {
  readonly #cache = new Map<string, { key: Buffer; at: number }>();
  readonly #maxEntries: number;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(
    readonly provider: KeyProvider,
    options: DataKeysOptions = {},
  ) {
    this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The agent's data key to encrypt with, made (and stored wrapped) on first need. Null when the agent's key
   * was destroyed: the agent is erased, and nothing of it may be encrypted again.
   */
  async forWriting(sql: SqlOrTx, agentId: string): Promise<Buffer | null> {
    const cached = this.#cached(agentId);
    if (cached) return cached;
    let stored = await getDataKey(sql, agentId);
    if (!stored) {
      const made = await this.provider.generateDataKey(agentId);
      stored = await insertDataKey(sql, { agent_id: agentId, provider: this.provider.name, key_id: made.keyId, wrapped_key: made.wrapped });
      // Another process may have stored its key first: use the stored one, whichever it is.
      if (stored.wrapped_key?.equals(made.wrapped)) return this.#remember(agentId, made.plaintext);
    }
    return this.#unwrapStored(stored);
  }

  /** The agent's data key to decrypt with; null when the agent has none, or it was destroyed. */
  async forReading(sql: SqlOrTx, agentId: string): Promise<Buffer | null> {
    const cached = this.#cached(agentId);
    if (cached) return cached;
    const stored = await getDataKey(sql, agentId);
    return stored ? this.#unwrapStored(stored) : null;
  }

  /** Forgets the agent's key (an erasure). */
  evict(agentId: string): void {
    // Not zeroed: a request in flight may still be encrypting with it.
    this.#cache.delete(agentId);
  }

  /** Refuses a provider that cannot unwrap the keys the store holds (see the module comment). */
  async checkStore(sql: SqlOrTx): Promise<void> {
    for (const sample of await liveKeySamples(sql)) await this.#unwrapStored(sample);
  }

  async #unwrapStored(stored: StoredDataKey): Promise<Buffer | null> {
    if (stored.wrapped_key === null) return null;
    const where = `the data key of agent ${stored.agent_id}, wrapped by the ${stored.provider} provider under key ${stored.key_id}`;
    if (stored.provider !== this.provider.name) {
      throw new TradesealError('config_invalid', `${where}, cannot be unwrapped: KMS_PROVIDER is ${this.provider.name}`, {
        hint: `set KMS_PROVIDER=${stored.provider} and its key settings`,
      });
    }
    let key: Buffer;
    try {
      key = await this.provider.unwrap(stored.wrapped_key, stored.key_id, stored.agent_id);
    } catch (error) {
      throw new TradesealError('config_invalid', `${where}, cannot be unwrapped with ${this.provider.description}: ${(error as Error).message}`, {
        hint: "the key settings (KMS_MASTER_KEY_FILE for the local provider) must name the master key the store's data keys were wrapped under",
        cause: error,
      });
    }
    return this.#remember(stored.agent_id, key);
  }

  #cached(agentId: string): Buffer | null {
    const hit = this.#cache.get(agentId);
    if (!hit) return null;
    if (this.#now() - hit.at > this.#ttlMs) {
      this.evict(agentId);
      return null;
    }
    // Re-inserted: a Map iterates in insertion order, so the first key is the least recently used.
    this.#cache.delete(agentId);
    this.#cache.set(agentId, hit);
    return hit.key;
  }

  /** On a miss only (it already costs a round trip): drops expired entries, then the least recently used. */
  #remember(agentId: string, key: Buffer): Buffer {
    const now = this.#now();
    for (const [id, entry] of this.#cache) if (now - entry.at > this.#ttlMs) this.#cache.delete(id);
    this.#cache.set(agentId, { key, at: now });
    while (this.#cache.size > this.#maxEntries) {
      const oldest = this.#cache.keys().next().value as string;
      this.evict(oldest);
    }
    return key;
  }

  /** How many keys are cached (for tests of the bound). */
  get cachedCount(): number {
    return this.#cache.size;
  }
}
