/**
 * A secret kept in the store, by one rule for every kind: the signal service's heartbeat signing key, the
 * engine's transparency-log key, the signal service's track-log key, the verification-code key, and every
 * webhook secret (./places.ts says where each is kept).
 *
 * With a key-management provider (`KMS_PROVIDER`, src/secrets/kms/provider.ts) a secret is stored only sealed
 * (envelope encryption): a fresh 256-bit data key from the provider, made for the context
 * `stored secret|<where>`, encrypts the secret with AES-256-GCM (src/core/crypto/aead.ts) under the associated data
 * `tradeseal stored secret v1|<where>`, and the store keeps one JSON value
 *
 *     {"v": 1, "provider": "local"|"aws", "key_id": "<the provider's key>", "wrapped_key": "<base64>", "value": "<base64>"}
 *
 * in the secret's `sealed` column, its clear column null. `<where>` names the row (`signal_service_secrets/
 * heartbeat_signing_key`, `log_signing_key`, `signal_webhooks/<account_id>`): a sealed value copied to another
 * row opens there neither under the provider (its context) nor under AES-GCM (its associated data). A copy of
 * the store (a backup, a replica, `pg_dump`) then holds nothing that signs or verifies without the provider.
 *
 * Without a provider a secret is kept in clear, as it always was: whoever reads the store can use it
 * (src/secrets/start.ts says so at `serve`'s start; docs/operations.md, "Secrets in the store", per kind).
 * A sealed secret is never read without its provider: `reveal` stops with `config_invalid` naming the secret,
 * the provider and key it is sealed under, and the settings missing.
 */
import { AeadOpenError, open, seal } from '../core/crypto/aead.js';
import { keyProviderFrom, settingsOf, type KeySettings } from './kms/from-config.js';
import type { KeyProvider } from './kms/provider.js';
import { TradesealError } from '../core/errors.js';

/** Where a secret is kept, and what it is, for people. */
export interface SecretPlace {
  /** The row: `table/key` (the associated data and the provider's context name it). */
  where: string;
  /** What it is, in a message: "the heartbeat signing key". */
  what: string;
}

/** The sealed form the store keeps (JSON). */
export interface SealedSecret {
  v: 1;
  provider: string;
  key_id: string;
  /** The data key as the provider wrapped it, base64. */
  wrapped_key: string;
  /** `seal(dataKey, secret, associatedData)` of src/core/crypto/aead.ts, base64. */
  value: string;
}

/** A secret as a row holds it: in clear, or sealed; exactly one of the two. */
export interface KeptSecret {
  clear: Buffer | null;
  sealed: SealedSecret | null;
}

const associatedData = (place: SecretPlace): string => `tradeseal stored secret v1|${place.where}`;
/** The provider's context: no agent id (a UUID, the other context a provider sees) can take this form. */
export const providerContext = (place: SecretPlace): string => `stored secret|${place.where}`;

export class SecretKeeper {
  constructor(readonly provider: KeyProvider | null) {}

  /** Whether secrets are sealed (a provider is configured). */
  get sealing(): boolean {
    return this.provider !== null;
  }

  /** The form to store `secret` in at `place`: sealed with a provider, in clear without. */
  async keep(place: SecretPlace, secret: Uint8Array): Promise<KeptSecret> {
    if (!this.provider) return { clear: Buffer.from(secret), sealed: null };
    const dataKey = await this.provider.generateDataKey(providerContext(place));
    try {
      const value = seal(dataKey.plaintext, secret, associatedData(place));
      return {
        clear: null,
        sealed: { v: 1, provider: this.provider.name, key_id: dataKey.keyId, wrapped_key: dataKey.wrapped.toString('base64'), value: value.toString('base64') },
      };
    } finally {
      dataKey.plaintext.fill(0);
    }
  }

  /** The secret a row holds; `config_invalid` when it is sealed and this process cannot open it. */
  async reveal(place: SecretPlace, kept: KeptSecret): Promise<Buffer> {
    if (kept.sealed) return this.#open(place, kept.sealed);
    if (kept.clear) return Buffer.from(kept.clear);
    throw new TradesealError('store_error', `${place.what} (${place.where}) is stored neither in clear nor sealed`);
  }

  async #open(place: SecretPlace, sealed: SealedSecret): Promise<Buffer> {
    const under = `${place.what} (${place.where}) is sealed under the ${sealed.provider} provider's key ${sealed.key_id}`;
    const settings = `set KMS_PROVIDER=${sealed.provider} and its key settings (${settingsOf(sealed.provider)})`;
    if (sealed.v !== 1) throw new TradesealError('store_error', `${under} in an unknown format (v ${String(sealed.v)})`);
    if (!this.provider) throw new TradesealError('config_invalid', `${under}, and KMS_PROVIDER is unset`, { hint: settings });
    if (sealed.provider !== this.provider.name) {
      throw new TradesealError('config_invalid', `${under}, and KMS_PROVIDER is ${this.provider.name}`, { hint: settings });
    }
    let dataKey: Buffer;
    try {
      dataKey = await this.provider.unwrap(Buffer.from(sealed.wrapped_key, 'base64'), sealed.key_id, providerContext(place));
    } catch (error) {
      throw new TradesealError('config_invalid', `${under}, and cannot be unwrapped with ${this.provider.description}: ${(error as Error).message}`, {
        hint: "the key settings must name the key the store's secrets were sealed under (KMS_MASTER_KEY_FILE for local, KMS_AWS_KEY_ID and the role's access to it for aws)",
        cause: error,
      });
    }
    try {
      return open(dataKey, Buffer.from(sealed.value, 'base64'), associatedData(place));
    } catch (error) {
      if (!(error instanceof AeadOpenError)) throw error;
      throw new TradesealError('store_error', `${under}, but its value does not open: it was altered, or copied from another row`, { cause: error });
    } finally {
      dataKey.fill(0);
    }
  }
}

/** The keeper of the settings' provider (one provider per settings object: src/secrets/kms/from-config.ts). */
export const secretKeeperFrom = (config: KeySettings): SecretKeeper => new SecretKeeper(keyProviderFrom(config));
