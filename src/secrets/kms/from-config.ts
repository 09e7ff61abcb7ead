/**
 * The key-management provider the settings ask for, and the engine's keyring of personal data built on it:
 * none without `KMS_PROVIDER` (personal data are then stored in plaintext and erasure answers 412, and the
 * store's secrets are kept in clear: src/secrets/), the local provider with `KMS_PROVIDER=local` and
 * `KMS_MASTER_KEY_FILE`, AWS KMS with `KMS_PROVIDER=aws` and `KMS_AWS_KEY_ID`. The one provider serves both
 * the data keys of personal data and those of the store's secrets.
 *
 * `checkKeyring` runs where an engine starts: it refuses a provider that cannot unwrap the store's keys, and
 * a missing provider when the store holds wrapped keys (their data could not be read, nor new data encrypted
 * under them).
 */
import type { Config } from '../../core/config.js';
import { TradesealError } from '../../core/errors.js';
import type { SqlOrTx } from '../../store/transaction.js';
import { liveKeySamples } from './data-key-rows.js';
import { AwsKeyProvider } from './aws.js';
import { DataKeys } from './data-keys.js';
import { LocalKeyProvider } from './local.js';
import type { KeyProvider } from './provider.js';

/**
 * The settings that choose and configure the provider. Every one may be left out, as unset (a test's or a
 * tool's partial settings): a caller serving a deployment passes its whole `Config`.
 */
export type KeySettings = Partial<Pick<Config, 'kmsProvider' | 'kmsMasterKeyFile' | 'kmsAwsKeyId' | 'kmsAwsRegion' | 'kmsAwsEndpoint'>>;

/** The settings without a provider (tests and tools that keep everything in clear). */
export const NO_KEY_PROVIDER: KeySettings = Object.freeze({
  kmsProvider: null,
  kmsMasterKeyFile: null,
  kmsAwsKeyId: null,
  kmsAwsRegion: null,
  kmsAwsEndpoint: null,
});

/** One provider per settings object: its file is read once, an AWS client made once. */
const providers = new WeakMap<KeySettings, KeyProvider | null>();

/** The provider of the settings; null without `KMS_PROVIDER`; `config_invalid` naming the setting missing. */
export function keyProviderFrom(config: KeySettings): KeyProvider | null {
  if (providers.has(config)) return providers.get(config)!;
  const provider = makeProvider(config);
  providers.set(config, provider);
  return provider;
}

function makeProvider(config: KeySettings): KeyProvider | null {
  switch (config.kmsProvider ?? null) {
    case null:
      return null;
    case 'local':
      if (config.kmsMasterKeyFile === null || config.kmsMasterKeyFile === undefined) {
        throw new TradesealError('config_invalid', 'KMS_PROVIDER=local needs KMS_MASTER_KEY_FILE, the file of the 32-byte master key', {
          hint: 'make one with `openssl rand -hex 32 > master.key && chmod 600 master.key` and set KMS_MASTER_KEY_FILE to its path',
        });
      }
      return LocalKeyProvider.fromFile(config.kmsMasterKeyFile);
    case 'aws':
      if (config.kmsAwsKeyId === null || config.kmsAwsKeyId === undefined) {
        throw new TradesealError('config_invalid', 'KMS_PROVIDER=aws needs KMS_AWS_KEY_ID, the AWS KMS key that wraps the data keys', {
          hint: "set KMS_AWS_KEY_ID to the key's id, ARN or alias (e.g. alias/tradeseal); the role needs kms:GenerateDataKey and kms:Decrypt on it",
        });
      }
      return new AwsKeyProvider({ keyId: config.kmsAwsKeyId, region: config.kmsAwsRegion ?? null, endpoint: config.kmsAwsEndpoint ?? null });
  }
}

export function dataKeysFrom(config: KeySettings): DataKeys | null {
  const provider = keyProviderFrom(config);
  return provider ? new DataKeys(provider) : null;
}

export async function checkKeyring(sql: SqlOrTx, keys: DataKeys | null): Promise<void> {
  if (keys) return keys.checkStore(sql);
  const [sample] = await liveKeySamples(sql);
  if (sample) {
    throw new TradesealError(
      'config_invalid',
      `the store holds personal data encrypted under data keys wrapped by the ${sample.provider} provider (key ${sample.key_id}), and KMS_PROVIDER is unset`,
      {
        hint: `set KMS_PROVIDER=${sample.provider} and its key settings (${settingsOf(sample.provider)})`,
      },
    );
  }
}

/** The settings a provider needs besides KMS_PROVIDER, for hints. */
export const settingsOf = (provider: string): string =>
  provider === 'aws' ? 'KMS_AWS_KEY_ID, and KMS_AWS_REGION or KMS_AWS_ENDPOINT where needed' : 'KMS_MASTER_KEY_FILE for local';
