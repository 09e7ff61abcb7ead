/**
 * `KMS_PROVIDER=aws`: data keys made and unwrapped by AWS KMS (`@aws-sdk/client-kms`), so that no key able to
 * open them is ever on the server's disk or in the store: `GenerateDataKey` (KeySpec AES_256) under the key of
 * `KMS_AWS_KEY_ID` returns the 32 bytes to use now and the `CiphertextBlob` the store keeps; `Decrypt` turns
 * the blob back into the key.
 *
 * Each call carries the encryption context `{"tradeseal-context": <context>}` (an agent id, or the name of a
 * secret kept in the store): KMS binds it to the blob as additional authenticated data, so a blob copied to
 * another row does not decrypt there, and CloudTrail records which one was asked for. The key id stored beside
 * a blob is the key ARN that `GenerateDataKey` answered (an alias resolved), and `Decrypt` names it, so a
 * blob is only ever sent to the key that made it: moving the alias to a new key leaves the old blobs readable
 * as long as the old key is enabled and the role may use it.
 *
 * The role needs `kms:GenerateDataKey` and `kms:Decrypt` on the key. Region: `KMS_AWS_REGION`, else the
 * region of an ARN in `KMS_AWS_KEY_ID`, else the SDK's own chain (`AWS_REGION`, the profile's `region`, the
 * EC2 instance's). Credentials: the SDK's default chain (environment, `AWS_PROFILE` and `~/.aws`, SSO, a web
 * identity token, the ECS container or EC2 instance role). `KMS_AWS_ENDPOINT` points it elsewhere (a VPC
 * endpoint; moto in the tests).
 */
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { AEAD_KEY_LENGTH } from '../../core/crypto/aead.js';
import type { GeneratedDataKey, KeyProvider } from './provider.js';

/** The encryption context's one key: what a data key is for. */
export const CONTEXT_KEY = 'tradeseal-context';

export interface AwsKeyProviderOptions {
  /** KMS_AWS_KEY_ID: a key id, key ARN, alias name or alias ARN. */
  keyId: string;
  region?: string | null;
  endpoint?: string | null;
  /** A client of one's own (tests); one from the options otherwise. */
  client?: KMSClient;
}

/** The region named in a KMS ARN (`arn:aws:kms:REGION:ACCOUNT:…`); null for an id or alias name. */
export const regionOfArn = (keyId: string): string | null => /^arn:aws[a-z-]*:kms:([a-z0-9-]+):/.exec(keyId)?.[1] ?? null;

export class AwsKeyProvider implements KeyProvider {
  readonly name = 'aws';
  readonly keyId: string;
  readonly description: string;
  readonly #client: KMSClient;

  constructor(options: AwsKeyProviderOptions) {
    this.keyId = options.keyId;
    const region = options.region ?? regionOfArn(options.keyId);
    this.#client =
      options.client ??
      new KMSClient({
        ...(region ? { region } : {}),
        ...(options.endpoint ? { endpoint: options.endpoint } : {}),
        // Two retries within a few seconds: a start or a request should not wait out a long outage of KMS.
        maxAttempts: 3,
      });
    this.description = `AWS KMS key ${options.keyId} (KMS_AWS_KEY_ID${region ? `, region ${region}` : ''}${options.endpoint ? `, KMS_AWS_ENDPOINT=${options.endpoint}` : ''})`;
  }

  async generateDataKey(context: string): Promise<GeneratedDataKey> {
    const out = await this.#client.send(new GenerateDataKeyCommand({ KeyId: this.keyId, KeySpec: 'AES_256', EncryptionContext: { [CONTEXT_KEY]: context } }));
    if (!out.Plaintext || !out.CiphertextBlob || !out.KeyId) throw new Error('AWS KMS GenerateDataKey answered without Plaintext, CiphertextBlob or KeyId');
    const plaintext = Buffer.from(out.Plaintext);
    if (plaintext.length !== AEAD_KEY_LENGTH) throw new Error(`AWS KMS made a data key of ${plaintext.length} bytes, not ${AEAD_KEY_LENGTH}`);
    return { plaintext, wrapped: Buffer.from(out.CiphertextBlob), keyId: out.KeyId };
  }

  async unwrap(wrapped: Buffer, keyId: string, context: string): Promise<Buffer> {
    const out = await this.#client.send(new DecryptCommand({ CiphertextBlob: wrapped, KeyId: keyId, EncryptionContext: { [CONTEXT_KEY]: context } }));
    if (!out.Plaintext) throw new Error('AWS KMS Decrypt answered without Plaintext');
    const key = Buffer.from(out.Plaintext);
    if (key.length !== AEAD_KEY_LENGTH) throw new Error(`the unwrapped data key is ${key.length} bytes, not ${AEAD_KEY_LENGTH}`);
    return key;
  }
}
