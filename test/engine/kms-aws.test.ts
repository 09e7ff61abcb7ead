/**
 * `KMS_PROVIDER=aws` against AWS KMS run locally (moto, test/helpers/moto.ts): the settings it needs, data keys
 * made by `GenerateDataKey` and opened by `Decrypt` only with the encryption context they were made for, the
 * key ARN stored even when the settings name an alias, the engine's keyring of personal data on it across two
 * processes sharing a store, and a start that cannot reach it stopped. A machine without `moto_server` fails
 * here, naming it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { AwsKeyProvider, regionOfArn } from '../../src/secrets/kms/aws.js';
import { DataKeys } from '../../src/secrets/kms/data-keys.js';
import { dataKeysFrom, keyProviderFrom } from '../../src/secrets/kms/from-config.js';
import { TradesealError } from '../../src/core/errors.js';
import { keepStoredSecrets } from '../../src/secrets/start.js';
import { secretKeeperFrom } from '../../src/secrets/stored-secret.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { motoForFile, startMotoKms } from '../helpers/moto.js';

const moto = motoForFile();
let store: TestStore;
beforeAll(async () => {
  store = await testStore();
});
afterAll(async () => store?.close());

describe('the settings', () => {
  it('KMS_AWS_KEY_ID takes a key id, an ARN or an alias; the region of an ARN is the default region', () => {
    const arn = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    for (const id of [
      '1234abcd-12ab-34cd-56ef-1234567890ab',
      arn,
      'alias/tradeseal',
      'arn:aws:kms:eu-west-1:111122223333:alias/tradeseal',
      'mrk-1234abcd12ab34cd56ef1234567890ab',
    ]) {
      expect(configWith({}, { KMS_PROVIDER: 'aws', KMS_AWS_KEY_ID: id }).kmsAwsKeyId).toBe(id);
    }
    expect(() => configWith({}, { KMS_AWS_KEY_ID: 'tradeseal' })).toThrow(/KMS_AWS_KEY_ID="tradeseal" \(expected a KMS key id, key ARN/);
    expect(() => configWith({}, { KMS_AWS_REGION: 'Europe' })).toThrow(/KMS_AWS_REGION="Europe"/);
    expect(regionOfArn(arn)).toBe('eu-west-1');
    expect(regionOfArn('alias/tradeseal')).toBeNull();
  });

  it('KMS_PROVIDER=aws without KMS_AWS_KEY_ID is config_invalid naming it', () => {
    let error: unknown;
    try {
      keyProviderFrom({ kmsProvider: 'aws', kmsMasterKeyFile: null, kmsAwsKeyId: null });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TradesealError);
    expect((error as TradesealError).code).toBe('config_invalid');
    expect((error as TradesealError).message).toContain('KMS_PROVIDER=aws needs KMS_AWS_KEY_ID');
  });

  it('a machine without moto_server fails the test naming it, with how to install it', async () => {
    await expect(startMotoKms('moto_server_not_installed')).rejects.toThrow(/moto_server_not_installed is not installed .*pip install 'moto\[server\]'/);
  });
});

describe('data keys through AWS KMS', () => {
  it('GenerateDataKey under the alias stores the key ARN; Decrypt gives the key back for its context only, under its key only', async () => {
    const provider = keyProviderFrom(moto().settings()) as AwsKeyProvider;
    expect(provider.name).toBe('aws');
    const made = await provider.generateDataKey('agent-a');
    expect(made.plaintext).toHaveLength(32);
    expect(made.keyId).toBe(moto().keyArn);
    expect(made.wrapped.includes(made.plaintext)).toBe(false);
    expect((await provider.unwrap(made.wrapped, made.keyId, 'agent-a')).equals(made.plaintext)).toBe(true);
    await expect(provider.unwrap(made.wrapped, made.keyId, 'agent-b')).rejects.toThrow(/InvalidCiphertext|UnknownError/);
    // Sent to another key, the blob does not open.
    await expect(provider.unwrap(made.wrapped, await moto().newKey(), 'agent-a')).rejects.toThrow();
  });

  it("the engine's keyring on it: one key per agent, unwrapped by another process from the store", async () => {
    const keys = dataKeysFrom(moto().settings())!;
    const agentId = randomUUID();
    const made = await Promise.all(Array.from({ length: 4 }, () => keys.forWriting(store.sql, agentId)));
    for (const k of made) expect(k!.equals(made[0]!)).toBe(true);
    const [row] = await store.sql`select provider, key_id, wrapped_key from agent_data_keys where agent_id = ${agentId}`;
    expect(row).toMatchObject({ provider: 'aws', key_id: moto().keyArn });
    expect((row!.wrapped_key as Buffer).includes(made[0]!)).toBe(false);
    // Another process, configured with the key's ARN rather than its alias, reads the same key.
    const elsewhere = new DataKeys(new AwsKeyProvider({ keyId: moto().keyArn, endpoint: moto().endpoint }));
    expect((await elsewhere.forReading(store.sql, agentId))!.equals(made[0]!)).toBe(true);
    await elsewhere.checkStore(store.sql);
  });

  it('a start whose KMS cannot be reached stops with config_invalid naming the key, before any request needs it', async () => {
    const e = await keepStoredSecrets(store.sql, secretKeeperFrom({ ...moto().settings(), kmsAwsEndpoint: 'http://127.0.0.1:1' })).then(
      () => null,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(TradesealError);
    expect((e as TradesealError).code).toBe('config_invalid');
    expect((e as TradesealError).message).toContain(
      `AWS KMS key ${moto().alias} (KMS_AWS_KEY_ID, region us-east-1, KMS_AWS_ENDPOINT=http://127.0.0.1:1) cannot make a data key`,
    );
    // Reached, it makes and opens one, and the start goes on.
    expect(await keepStoredSecrets(store.sql, secretKeeperFrom(moto().settings()))).toEqual({ sealed: 0 });
  });
});
