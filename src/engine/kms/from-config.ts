/**
 * The keyring the settings ask for: none without `KMS_PROVIDER` (personal data are then stored in plaintext
 * and erasure answers 412), the local provider with `KMS_PROVIDER=local` and `KMS_MASTER_KEY_FILE`.
 * A cloud provider is added here as another `KMS_PROVIDER` value (see ./provider.ts).
 *
 * `checkKeyring` runs where an engine starts: it refuses a provider that cannot unwrap the store's keys, and
 * a missing provider when the store holds wrapped keys (their data could not be read, nor new data encrypted
 * under them).
 */
import type { Config } from '../../config.js';
import { TradesealError } from '../../errors.js';
import type { SqlOrTx } from '../../store/transaction.js';
import { liveKeySamples } from '../store/data-keys.js';
import { DataKeys } from './data-keys.js';
import { LocalKeyProvider } from './local.js';

export function dataKeysFrom(config: Pick<Config, 'kmsProvider' | 'kmsMasterKeyFile'>): DataKeys | null {
  if (config.kmsProvider === null) return null;
  if (config.kmsMasterKeyFile === null) {
    throw new TradesealError('config_invalid', 'KMS_PROVIDER=local needs KMS_MASTER_KEY_FILE, the file of the 32-byte master key', {
      hint: 'make one with `openssl rand -hex 32 > master.key && chmod 600 master.key` and set KMS_MASTER_KEY_FILE to its path',
    });
  }
  return new DataKeys(LocalKeyProvider.fromFile(config.kmsMasterKeyFile));
}

export async function checkKeyring(sql: SqlOrTx, keys: DataKeys | null): Promise<void> {
  if (keys) return keys.checkStore(sql);
  const [sample] = await liveKeySamples(sql);
  if (sample) {
    throw new TradesealError('config_invalid', `the store holds personal data encrypted under data keys wrapped by the ${sample.provider} provider (key ${sample.key_id}), and KMS_PROVIDER is unset`, {
      hint: `set KMS_PROVIDER=${sample.provider} and its key settings (KMS_MASTER_KEY_FILE for local)`,
    });
  }
}
