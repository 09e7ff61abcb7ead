/**
 * What a server's start does with the secrets kept in the store (./places.ts), as `checkKeyring` does for the
 * data keys of personal data (src/secrets/kms/from-config.ts):
 *
 * - With a provider: each (provider, key) the store's secrets are sealed under must open with these settings
 *   (one sample each), or the start stops with `config_invalid`; a store with nothing sealed yet has the
 *   provider make and open one data key instead, so wrong credentials or a wrong key stop the start, not the
 *   first request that needs a key. Then every secret still kept in clear is sealed: the provider's calls
 *   first, then one transaction that writes each sealed form and erases its clear value (a row changed
 *   meanwhile is left for the next start). Servers starting together may all do it: each update is
 *   conditional on the clear value it read, so a row is sealed once.
 * - Without a provider: a store holding any sealed secret stops the start with `config_invalid` naming the
 *   secret, the provider and key it is sealed under, and the settings to set.
 *
 * `secretsInClearWarning` is the one line `serve` prints at start when the store keeps a secret in clear.
 */
import { TradesealError } from '../core/errors.js';
import { settingsOf } from './kms/from-config.js';
import { withTransaction, type SqlOrTx } from '../store/transaction.js';
import { secretsInClear, sealedSamples, type ClearSecret } from './places.js';
import type { KeptSecret, SecretKeeper } from './stored-secret.js';

/** Provider calls in flight at once while sealing (a store with many webhooks). */
const SEAL_CONCURRENCY = 8;

/** Checks the store's sealed secrets against the settings and seals those kept in clear; how many it sealed. */
export async function keepStoredSecrets(sql: SqlOrTx, keeper: SecretKeeper): Promise<{ sealed: number }> {
  const samples = await sealedSamples(sql);
  const provider = keeper.provider;
  if (!provider) {
    const [sample] = samples;
    if (sample) {
      throw new TradesealError(
        'config_invalid',
        `${sample.place.what} (${sample.place.where}) is sealed under the ${sample.sealed.provider} provider's key ${sample.sealed.key_id}, and KMS_PROVIDER is unset: the store's secrets cannot be read`,
        {
          hint: `set KMS_PROVIDER=${sample.sealed.provider} and its key settings (${settingsOf(sample.sealed.provider)})`,
        },
      );
    }
    return { sealed: 0 };
  }
  for (const sample of samples) await keeper.reveal(sample.place, { clear: null, sealed: sample.sealed });
  const clear = await secretsInClear(sql);
  if (samples.length === 0 && clear.length === 0) await probe(keeper);
  if (clear.length === 0) return { sealed: 0 };
  const sealed = await sealAll(keeper, clear);
  const count = await withTransaction(sql, async (tx) => {
    let n = 0;
    for (const [i, secret] of clear.entries()) if (await secret.replace(tx, sealed[i]!.sealed!)) n++;
    return n;
  });
  return { sealed: count };
}

async function sealAll(keeper: SecretKeeper, clear: ClearSecret[]): Promise<KeptSecret[]> {
  const out: KeptSecret[] = new Array(clear.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < clear.length) {
      const i = next++;
      out[i] = await withProvider(keeper, () => keeper.keep(clear[i]!.place, clear[i]!.value));
    }
  };
  await Promise.all(Array.from({ length: Math.min(SEAL_CONCURRENCY, clear.length) }, lane));
  return out;
}

/** Makes one data key and opens what it sealed: the settings reach a working provider. */
async function probe(keeper: SecretKeeper): Promise<void> {
  const place = { where: 'start check', what: 'a secret sealed to check the provider at start' };
  const secret = Buffer.from('tradeseal start check');
  const kept = await withProvider(keeper, () => keeper.keep(place, secret));
  if (!(await keeper.reveal(place, kept)).equals(secret))
    throw new TradesealError('config_invalid', `${keeper.provider!.description} does not give back the data key it made`);
}

/** A failure of the provider itself (unreachable, refused, no such key) as `config_invalid` naming it. */
async function withProvider<T>(keeper: SecretKeeper, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof TradesealError) throw error;
    throw new TradesealError('config_invalid', `${keeper.provider!.description} cannot make a data key: ${(error as Error).message}`, {
      hint: "check the key settings (KMS_MASTER_KEY_FILE for local; KMS_AWS_KEY_ID, the region, the endpoint and the role's kms:GenerateDataKey and kms:Decrypt for aws)",
      cause: error,
    });
  }
}

/** What a copy of the store lets its holder do with each kind of secret kept in clear. */
const USES: ReadonlyArray<readonly [string, string]> = [
  ['signal_service_secrets/heartbeat_signing_key', 'sign heartbeats the engines accept'],
  ['log_signing_key', "sign heads of the engine's transparency log"],
  ['signal_service_secrets/track_log_signing_key', 'sign heads of the track log'],
  ['signal_webhooks/', 'sign webhook deliveries'],
];

/**
 * The start warning of a store that keeps secrets in clear (no provider): one line naming each, what a copy
 * of the store lets its holder do with them, and the setting that stops it; null when none is kept in clear.
 */
export async function secretsInClearWarning(sql: SqlOrTx): Promise<string | null> {
  const clear = await secretsInClear(sql);
  if (clear.length === 0) return null;
  const isWebhook = (c: ClearSecret): boolean => c.place.where.startsWith('signal_webhooks/');
  const webhooks = clear.filter(isWebhook).length;
  const listed = [
    ...clear.filter((c) => !isWebhook(c)).map((c) => c.place.what),
    ...(webhooks > 0 ? [`${webhooks} webhook secret${webhooks === 1 ? '' : 's'}`] : []),
  ];
  const uses = USES.filter(([prefix]) => clear.some((c) => c.place.where.startsWith(prefix))).map(([, use]) => use);
  return (
    `the store keeps ${listAnd(listed)} in clear: whoever holds a copy of it (a backup, a replica, a dump) can ${listAnd(uses)} as this service; ` +
    'set KMS_PROVIDER to keep them sealed (docs/operations.md, "Secrets in the store")'
  );
}

const listAnd = (items: string[]): string => (items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`);
