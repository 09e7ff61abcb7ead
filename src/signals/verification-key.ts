/**
 * The verification-code key: 256 random bits, the HMAC key of verification codes (./verification.ts), made by
 * whichever process needs it first and kept in the store (`signal_service_secrets`, name
 * `verification_code_key`) only sealed under the key-management provider (src/secrets/stored-secret.ts). It
 * exists only with a provider: kept in clear it would be in every copy of the store beside the hashes it
 * keys, and protect nothing, so without a provider codes are hashed with scrypt instead.
 *
 * `codeHasherFrom` is the hasher a server uses: keyed when `KMS_PROVIDER` is set, scrypt otherwise. A code
 * hashed under the key cannot be checked without it: a store holding the sealed key does not start without
 * its provider (src/secrets/start.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Sql } from 'postgres';
import type { KeySettings } from '../secrets/kms/from-config.js';
import { onceRetrying } from '../core/once.js';
import { keptServiceSecret } from '../secrets/places.js';
import { secretKeeperFrom, type SecretKeeper } from '../secrets/stored-secret.js';
import { codeHasher, type CodeHasher } from './verification.js';

export const CODE_KEY_NAME = 'verification_code_key';

/** The key kept in the store, made on the first call; only for a keeper that seals. */
export async function verificationCodeKey(sql: Sql, keeper: SecretKeeper): Promise<Buffer> {
  if (!keeper.sealing) throw new Error('the verification-code key is kept only sealed: a key-management provider is needed');
  return (await keptServiceSecret(sql, keeper, CODE_KEY_NAME, () => randomBytes(32))).secret;
}

/** The hasher of the settings: HMAC under the sealed key with a provider (read once per process), scrypt without. */
export function codeHasherFrom(sql: Sql, config: KeySettings): CodeHasher {
  const keeper = secretKeeperFrom(config);
  return codeHasher(keeper.sealing ? onceRetrying(() => verificationCodeKey(sql, keeper)) : null);
}
