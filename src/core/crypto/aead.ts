/**
 * AES-256-GCM (NIST SP 800-38D) authenticated encryption of small values, through node:crypto.
 *
 * A sealed value is `version (1 byte, 0x01) ‖ nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes)`. The nonce is
 * 96 random bits per value (SP 800-38D §8.2.2: random nonces are safe for up to 2^32 values per key; a key
 * here is one agent's, far below that). The associated data binds a value to where it belongs (a trace id,
 * an agent id): a ciphertext copied to another row does not open there. `open` refuses any value whose
 * tag does not verify under the key and the associated data: a wrong key, an edited byte, another row.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export const AEAD_KEY_LENGTH = 32;
const VERSION = 0x01;
const NONCE_LENGTH = 12;
const TAG_LENGTH = 16;

function checkKey(key: Uint8Array): void {
  if (!(key instanceof Uint8Array) || key.length !== AEAD_KEY_LENGTH) {
    throw new TypeError(`key must be ${AEAD_KEY_LENGTH} bytes, got ${key instanceof Uint8Array ? key.length : typeof key}`);
  }
}

/** Encrypts `plaintext` under `key` with a fresh random nonce, authenticating `associatedData` too. */
export function seal(key: Uint8Array, plaintext: Uint8Array, associatedData: string): Buffer {
  checkKey(key);
  const nonce = randomBytes(NONCE_LENGTH);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_LENGTH });
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.of(VERSION), nonce, body, cipher.getAuthTag()]);
}

/** The error `open` throws: the value is not a sealed value of this key and associated data. */
export class AeadOpenError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'AeadOpenError';
  }
}

/** Decrypts a value made by `seal` with the same key and associated data; throws `AeadOpenError` otherwise. */
export function open(key: Uint8Array, sealed: Uint8Array, associatedData: string): Buffer {
  checkKey(key);
  const bytes = Buffer.from(sealed);
  if (bytes.length < 1 + NONCE_LENGTH + TAG_LENGTH)
    throw new AeadOpenError(`a sealed value is at least ${1 + NONCE_LENGTH + TAG_LENGTH} bytes, got ${bytes.length}`);
  if (bytes[0] !== VERSION) throw new AeadOpenError(`unknown sealed value version ${bytes[0]}`);
  const nonce = bytes.subarray(1, 1 + NONCE_LENGTH);
  const tag = bytes.subarray(bytes.length - TAG_LENGTH);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_LENGTH });
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(bytes.subarray(1 + NONCE_LENGTH, bytes.length - TAG_LENGTH)), decipher.final()]);
  } catch {
    throw new AeadOpenError('the authentication tag does not verify: another key, other associated data, or an altered value');
  }
}
