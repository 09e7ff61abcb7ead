/**
 * The regime signal service's heartbeat signing key (an Ed25519 seed, RFC 8032), resolved the same way by
 * the server (`GET /v1/engine/heartbeat`) and the CLI (`tradeseal regime heartbeat`,
 * `tradeseal signals heartbeat-key`):
 *
 * 1. `REGIME_SIGNING_KEY` when it is set (the store is not read);
 * 2. otherwise the key kept in the store (`signal_service_secrets`, name `heartbeat_signing_key`), generated
 *    by whichever process needs it first. Creation is race-safe across processes: every contender inserts
 *    its own fresh key with `on conflict do nothing`, then reads the row back in a new statement (a new
 *    snapshot under READ COMMITTED, so it sees the winner's committed row); all end up with the one key.
 *
 * The engine verifies with the public key (its `REGIME_OPERATOR_PUBKEY`), which `publicKeyForms` renders.
 * With `KMS_PROVIDER` the stored key is kept sealed (src/secrets/stored-secret.ts); without, whoever can read
 * the store can sign heartbeats the engines accept, so a deployment without a provider that keeps its database
 * apart from its secrets sets `REGIME_SIGNING_KEY` from its secret manager instead.
 */
import type { Sql } from 'postgres';
import type { Config } from '../core/config.js';
import { generateKeyPair, publicKeyFromSecret, publicKeyToPem, SECRET_KEY_LENGTH, toBase64 } from '../core/crypto/ed25519.js';
import type { KeySettings } from '../secrets/kms/from-config.js';
import { TradesealError } from '../core/errors.js';
import { keptServiceSecret } from '../secrets/places.js';
import { secretKeeperFrom, type SecretKeeper } from '../secrets/stored-secret.js';

/** The row of `signal_service_secrets` holding a generated key. */
export const SIGNING_KEY_NAME = 'heartbeat_signing_key';

export type SigningKeySource = 'REGIME_SIGNING_KEY' | 'store';

export interface SigningKey {
  secretKey: Uint8Array;
  publicKey: Uint8Array;
  source: SigningKeySource;
  /** True when this call generated the stored key (the first use of the store). */
  created: boolean;
}

/**
 * A key kept in `signal_service_secrets` under `name`, generated and kept on the first call, sealed under the
 * key-management provider when one is configured (src/secrets/stored-secret.ts). `setting` names the
 * environment setting that replaces it, for the error's hint.
 */
export async function storedSecretKey(sql: Sql, keeper: SecretKeeper, name: string, setting: string): Promise<{ secretKey: Uint8Array; created: boolean }> {
  const { secret, created } = await keptServiceSecret(sql, keeper, name, () => generateKeyPair().secretKey);
  if (secret.length !== SECRET_KEY_LENGTH) {
    throw new TradesealError('store_error', `the stored key ${name} is ${secret.length} bytes, not ${SECRET_KEY_LENGTH}`, {
      hint: `set ${setting}, or delete the row so that a new key is generated (its verifiers then need the new public key)`,
    });
  }
  return { secretKey: new Uint8Array(secret), created };
}

/** The heartbeat key kept in the store, generated and kept on the first call. */
export const storedSigningKey = (sql: Sql, keeper: SecretKeeper): Promise<{ secretKey: Uint8Array; created: boolean }> =>
  storedSecretKey(sql, keeper, SIGNING_KEY_NAME, 'REGIME_SIGNING_KEY');

/** The signing key in force: `REGIME_SIGNING_KEY`, or the stored key (created when there is none). */
export async function loadSigningKey(sql: Sql, config: Pick<Config, 'regimeSigningKey'> & KeySettings): Promise<SigningKey> {
  if (config.regimeSigningKey) {
    return { secretKey: config.regimeSigningKey, publicKey: publicKeyFromSecret(config.regimeSigningKey), source: 'REGIME_SIGNING_KEY', created: false };
  }
  const { secretKey, created } = await storedSigningKey(sql, secretKeeperFrom(config));
  return { secretKey, publicKey: publicKeyFromSecret(secretKey), source: 'store', created };
}

export interface PublicKeyForms {
  hex: string;
  base64: string;
  pem: string;
}

/** The public key in each form `REGIME_OPERATOR_PUBKEY` accepts. */
export const publicKeyForms = (publicKey: Uint8Array): PublicKeyForms => ({
  hex: Buffer.from(publicKey).toString('hex'),
  base64: toBase64(publicKey),
  pem: publicKeyToPem(publicKey),
});
