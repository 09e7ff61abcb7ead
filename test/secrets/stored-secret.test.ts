/**
 * The rule every secret kept in the store follows (src/secrets/): sealed under the key-management provider when
 * one is configured, each under a data key of its own and bound to its row; in clear without one, said by one
 * warning at start; sealed at the first start with a provider when it was kept in clear before (the same keys
 * come back, the clear values are gone); and a store with sealed secrets refused, with `config_invalid` naming
 * what is missing, by a start without the provider or with another master key.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalKeyProvider } from '../../src/secrets/kms/local.js';
import { loadLogKey } from '../../src/engine/store/log-key.js';
import { TradesealError } from '../../src/core/errors.js';
import { serviceSecretPlace, webhookSecretPlace } from '../../src/secrets/places.js';
import { keepStoredSecrets, secretsInClearWarning } from '../../src/secrets/start.js';
import { SecretKeeper, secretKeeperFrom } from '../../src/secrets/stored-secret.js';
import { loadSigningKey } from '../../src/signals/signing-key.js';
import { loadTrackLogKey } from '../../src/signals/track/key.js';
import { getWebhook, putWebhook, webhookSecret } from '../../src/signals/webhooks/store.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { kmsConfig, masterKeyFile } from '../helpers/kms.js';

/** The error `fn` rejects with. */
async function failure(fn: () => Promise<unknown>): Promise<TradesealError> {
  const error = await fn().then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof TradesealError)) throw new Error(`expected a TradesealError, got ${String(error)}`);
  return error;
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

// Made at the file's top level: the helper removes its directory after the scope that first asked.
const [file, fileElsewhere, wrongFile] = [masterKeyFile(), masterKeyFile(), masterKeyFile()];

describe('keeping one secret', () => {
  const keeper = new SecretKeeper(LocalKeyProvider.fromFile(fileElsewhere));
  const place = serviceSecretPlace('heartbeat_signing_key');
  const secret = Buffer.from('0123456789abcdef0123456789abcdef');

  it('with a provider: sealed only, under a data key of its own, and opened again', async () => {
    const kept = await keeper.keep(place, secret);
    expect(kept.clear).toBeNull();
    expect(kept.sealed).toMatchObject({ v: 1, provider: 'local', key_id: keeper.provider!.keyId });
    expect(JSON.stringify(kept.sealed)).not.toContain(secret.toString('base64'));
    expect((await keeper.reveal(place, kept)).equals(secret)).toBe(true);
    const again = await keeper.keep(place, secret);
    expect(again.sealed!.wrapped_key).not.toBe(kept.sealed!.wrapped_key);
  });

  it('a sealed value copied to another row does not open there', async () => {
    const kept = await keeper.keep(webhookSecretPlace(randomUUID()), secret);
    const e = await failure(() => keeper.reveal(webhookSecretPlace(randomUUID()), kept));
    expect(e.code).toBe('config_invalid');
    expect(e.message).toMatch(/cannot be unwrapped/);
  });

  it('without the provider, or with another master key, it is not read: config_invalid naming the secret and what is missing', async () => {
    const kept = await keeper.keep(place, secret);
    const none = await failure(() => new SecretKeeper(null).reveal(place, kept));
    expect(none.code).toBe('config_invalid');
    expect(none.message).toBe(
      `the heartbeat signing key (signal_service_secrets/heartbeat_signing_key) is sealed under the local provider's key ${keeper.provider!.keyId}, and KMS_PROVIDER is unset`,
    );
    expect(none.hint).toContain('KMS_PROVIDER=local');
    const other = await failure(() => new SecretKeeper(LocalKeyProvider.fromFile(wrongFile)).reveal(place, kept));
    expect(other.code).toBe('config_invalid');
    expect(other.message).toContain(`KMS_MASTER_KEY_FILE=${wrongFile}`);
  });

  it('without a provider: kept in clear', async () => {
    expect(await new SecretKeeper(null).keep(place, secret)).toEqual({ clear: secret, sealed: null });
  });
});

describe('a store that kept its secrets in clear, started with a provider', () => {
  let store: TestStore;
  const provider = kmsConfig(file);
  let keys: { heartbeat: string; log: string; track: string };
  let hook: { accountId: string; secret: string };

  beforeAll(async () => {
    store = await testStore();
    keys = {
      heartbeat: hex((await loadSigningKey(store.sql, { regimeSigningKey: null })).publicKey),
      log: hex((await loadLogKey(store.sql, { logSigningKey: null })).publicKey),
      track: hex((await loadTrackLogKey(store.sql, { signalLogSigningKey: null })).publicKey),
    };
    hook = { accountId: randomUUID(), secret: `whsec_${randomUUID()}` };
    await store.sql`insert into signal_accounts (account_id, email, tier) values (${hook.accountId}, ${`${hook.accountId}@example.test`}, 'pro')`;
    await putWebhook(store.sql, new SecretKeeper(null), hook.accountId, 'https://hooks.example.test/x', hook.secret);
  });
  afterAll(async () => store?.close());

  it('without a provider, the start warning names each secret kept in clear and what a copy of the store does with it', async () => {
    expect(await secretsInClearWarning(store.sql)).toBe(
      "the store keeps the heartbeat signing key, the track-log signing key, the engine's transparency-log key and 1 webhook secret in clear: " +
        "whoever holds a copy of it (a backup, a replica, a dump) can sign heartbeats the engines accept, sign heads of the engine's transparency log, " +
        'sign heads of the track log and sign webhook deliveries as this service; set KMS_PROVIDER to keep them sealed (docs/operations.md, "Secrets in the store")',
    );
    expect(await keepStoredSecrets(store.sql, new SecretKeeper(null))).toEqual({ sealed: 0 });
  });

  it('seals every one at start, once under two starts at the same time, and erases the clear values; the same keys come back', async () => {
    const starts = await Promise.all([
      keepStoredSecrets(store.sql, secretKeeperFrom(provider)),
      keepStoredSecrets(store.sql, new SecretKeeper(LocalKeyProvider.fromFile(file))),
    ]);
    expect(starts[0]!.sealed + starts[1]!.sealed).toBe(4);
    expect(await store.sql`select name from signal_service_secrets where value is not null or sealed is null`).toEqual([]);
    expect(await store.sql`select 1 from log_signing_key where secret_key is not null or sealed is null`).toEqual([]);
    expect(await store.sql`select 1 from signal_webhooks where secret is not null or secret_sealed is null`).toEqual([]);
    expect(await secretsInClearWarning(store.sql)).toBeNull();
    expect(await keepStoredSecrets(store.sql, secretKeeperFrom(provider))).toEqual({ sealed: 0 });

    expect(hex((await loadSigningKey(store.sql, { regimeSigningKey: null, ...provider })).publicKey)).toBe(keys.heartbeat);
    expect(hex((await loadLogKey(store.sql, { logSigningKey: null, ...provider })).publicKey)).toBe(keys.log);
    expect(hex((await loadTrackLogKey(store.sql, { signalLogSigningKey: null, ...provider })).publicKey)).toBe(keys.track);
    expect(await webhookSecret(secretKeeperFrom(provider), hook.accountId, (await getWebhook(store.sql, hook.accountId))!)).toBe(hook.secret);
  });

  it('a start without the provider, or with another master key, is refused, naming the secret and what is missing', async () => {
    const none = await failure(() => keepStoredSecrets(store.sql, new SecretKeeper(null)));
    expect(none.code).toBe('config_invalid');
    expect(none.message).toMatch(
      /^the .+ \(.+\) is sealed under the local provider's key local:[0-9a-f]{16}, and KMS_PROVIDER is unset: the store's secrets cannot be read$/,
    );
    expect(none.hint).toBe('set KMS_PROVIDER=local and its key settings (KMS_MASTER_KEY_FILE for local)');
    const other = await failure(() => keepStoredSecrets(store.sql, secretKeeperFrom(kmsConfig(wrongFile))));
    expect(other.code).toBe('config_invalid');
    expect(other.message).toContain(`KMS_MASTER_KEY_FILE=${wrongFile}`);
    // The commands that read a key stop the same way.
    const read = await failure(() => loadSigningKey(store.sql, { regimeSigningKey: null }));
    expect(read.code).toBe('config_invalid');
    expect(read.message).toContain('the heartbeat signing key (signal_service_secrets/heartbeat_signing_key) is sealed');
  });
});
