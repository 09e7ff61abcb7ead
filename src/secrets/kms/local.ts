/**
 * `KMS_PROVIDER=local`: data keys wrapped with AES-256-GCM (src/core/crypto/aead.ts) under a 32-byte master key
 * read once from `KMS_MASTER_KEY_FILE`, the agent id as associated data.
 *
 * The file holds the key as 64 hex characters or as base64 (whitespace and a final newline are ignored),
 * e.g. `openssl rand -hex 32 > master.key && chmod 600 master.key`. A missing, unreadable or malformed file
 * stops the engine at start with `config_invalid` naming the file. The key id stored beside each wrapped key
 * is a fingerprint of the master key (`local:` + 16 hex of SHA-256 over a label and the key): it tells a
 * store's keys from another master key's without revealing anything of the key.
 *
 * Whoever holds the file and a copy of the store can read the personal data of every agent not yet erased;
 * once an agent is erased, its wrapped key is gone from the store and the file no longer helps. Keep the
 * file out of backups of the store.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { AEAD_KEY_LENGTH, open, seal } from '../../core/crypto/aead.js';
import { TradesealError } from '../../core/errors.js';
import type { GeneratedDataKey, KeyProvider } from './provider.js';

const wrapContext = (context: string): string => `tradeseal data key v1|${context}`;

/** The master key in `text`: 64 hex characters or base64 of 32 bytes; null when it is neither. */
export function parseMasterKey(text: string): Buffer | null {
  const t = text.replace(/\s+/g, '');
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/]{43}=?$/.test(t)) {
    const bytes = Buffer.from(t, 'base64');
    return bytes.length === AEAD_KEY_LENGTH ? bytes : null;
  }
  return null;
}

export class LocalKeyProvider implements KeyProvider {
  readonly name = 'local';
  readonly keyId: string;
  readonly description: string;
  readonly #master: Buffer;

  /** `source` names where the key came from, for messages (the file). */
  constructor(masterKey: Uint8Array, source = 'a master key given in code') {
    if (masterKey.length !== AEAD_KEY_LENGTH) throw new TypeError(`masterKey must be ${AEAD_KEY_LENGTH} bytes, got ${masterKey.length}`);
    this.#master = Buffer.from(masterKey);
    this.keyId = `local:${createHash('sha256').update('tradeseal local master key id\0').update(this.#master).digest('hex').slice(0, 16)}`;
    this.description = `the local provider's master key ${this.keyId} (${source})`;
  }

  /** Reads and checks the master key file; `config_invalid` naming the file when it cannot be used. */
  static fromFile(file: string): LocalKeyProvider {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw new TradesealError(
        'config_invalid',
        `KMS_MASTER_KEY_FILE=${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
        {
          hint: 'point KMS_MASTER_KEY_FILE at a readable file holding a 32-byte key, e.g. made by `openssl rand -hex 32`',
        },
      );
    }
    const key = parseMasterKey(text);
    if (!key) {
      throw new TradesealError('config_invalid', `KMS_MASTER_KEY_FILE=${file} does not hold a 32-byte key (expected 64 hex characters or base64 of 32 bytes)`, {
        hint: 'make one with `openssl rand -hex 32 > FILE`; the contents are never printed',
      });
    }
    return new LocalKeyProvider(key, `KMS_MASTER_KEY_FILE=${file}`);
  }

  async generateDataKey(context: string): Promise<GeneratedDataKey> {
    const plaintext = randomBytes(AEAD_KEY_LENGTH);
    return { plaintext, wrapped: seal(this.#master, plaintext, wrapContext(context)), keyId: this.keyId };
  }

  async unwrap(wrapped: Buffer, keyId: string, context: string): Promise<Buffer> {
    if (keyId !== this.keyId) throw new Error(`wrapped under master key ${keyId}, but KMS_MASTER_KEY_FILE holds master key ${this.keyId}`);
    const key = open(this.#master, wrapped, wrapContext(context));
    if (key.length !== AEAD_KEY_LENGTH) throw new Error(`the unwrapped data key is ${key.length} bytes, not ${AEAD_KEY_LENGTH}`);
    return key;
  }
}
