/**
 * The key-management provider: what wraps the data keys under which tradeseal encrypts what it keeps secret in
 * the store. Two uses share it:
 *
 * - the engine's per-agent data keys of personal data (the regulatory block of a trace and its salt, an agent's
 *   name), so that erasing an agent is destroying its data key (crypto-shredding;
 *   docs/decisions/0016-erasure.md); `context` is the agent id (a UUID), the wrapped key kept in `agent_data_keys`;
 * - the secrets kept in the store (the signing keys, webhook secrets, the verification-code key), each sealed
 *   under a data key of its own (src/secrets/stored-secret.ts); `context` is `stored secret|<where it is kept>`,
 *   which no agent id can be.
 *
 * Nothing stores a data key in the clear: the store keeps the provider's wrapped form with the provider's name
 * and key id, the provider is asked to unwrap it when the key is needed, and unwrapped keys stay in process
 * memory only (src/secrets/kms/data-keys.ts). The providers shipped are `KMS_PROVIDER=local`
 * (src/secrets/kms/local.ts, a master key file) and `KMS_PROVIDER=aws` (src/secrets/kms/aws.ts: `generateDataKey`
 * is `GenerateDataKey` with KeySpec AES_256 and the encryption context `{"tradeseal-context": context}`,
 * `unwrap` is `Decrypt` with the same context, `keyId` the key ARN). Another KMS implements this interface with
 * its data-key operations:
 *
 * - Google Cloud KMS: 32 bytes from `crypto.randomBytes`, wrapped by `encrypt` with
 *   `additionalAuthenticatedData` = the context; `unwrap` is `decrypt`; `keyId` the CryptoKey resource name.
 * - HashiCorp Vault transit: `POST transit/datakey/plaintext/:name` with `context`; `unwrap` is
 *   `transit/decrypt/:name`; `keyId` the key name (and version, which Vault carries in the ciphertext).
 *
 * A wrapped key unwraps only for the context it was made for. Every method may be slow (a network call); the
 * engine calls `unwrap` once per agent per process lifetime of a cached key.
 */

/** A fresh data key: its 32 bytes, to use now and forget, and the wrapped form the store keeps. */
export interface GeneratedDataKey {
  plaintext: Buffer;
  wrapped: Buffer;
  /** The provider's id of the key that wrapped it (stored beside the wrapped key). */
  keyId: string;
}

export interface KeyProvider {
  /** The `KMS_PROVIDER` value, stored with each wrapped key. */
  readonly name: string;
  /** Where the provider's keys are, for messages (never a secret): e.g. the master key file and key id. */
  readonly description: string;
  /** The id of the key that wraps new data keys now. */
  readonly keyId: string;
  /** Makes a 256-bit data key for `context` and wraps it. */
  generateDataKey(context: string): Promise<GeneratedDataKey>;
  /**
   * The 32 bytes of a data key that this provider wrapped for `context` under key `keyId`. Throws when it
   * cannot (another master key, another context, an altered wrapped key).
   */
  unwrap(wrapped: Buffer, keyId: string, context: string): Promise<Buffer>;
  /**
   * Optional: called inside the erasure's transaction, after the wrapped key was deleted from the store and
   * before the erasure commits (a failure rolls it back). A provider that keeps a key per data subject
   * schedules that key's destruction here; one that wraps every data key under a shared master key (the
   * local provider, the examples above) has nothing to do: the wrapped key is gone with the store's row.
   */
  destroy?(keyId: string, context: string): Promise<void>;
}
