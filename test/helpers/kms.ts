/**
 * Master key files for the local key-management provider (`KMS_PROVIDER=local`): a fresh random 32-byte
 * key per call, written as hex into a temporary directory removed after the test file.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

let dir: string | null = null;

/** A new master key file (mode 0600); `contents` overrides what is written (for malformed files). */
export function masterKeyFile(contents: string = `${randomBytes(32).toString('hex')}\n`): string {
  if (!dir) {
    const created = fs.mkdtempSync(path.join(os.tmpdir(), 'tradeseal-kms-'));
    dir = created;
    afterAll(() => {
      fs.rmSync(created, { recursive: true, force: true });
      // Test files can share this module (vitest's isolate: false): the next file makes a directory of its own.
      dir = null;
    });
  }
  const file = path.join(dir, `master-${randomBytes(4).toString('hex')}.key`);
  fs.writeFileSync(file, contents, { mode: 0o600 });
  return file;
}

/** The engine settings of the local provider with `file`. */
export const kmsConfig = (file: string) => ({ kmsProvider: 'local' as const, kmsMasterKeyFile: file });

/** The CLI environment variables of the local provider with `file`. */
export const kmsEnv = (file: string) => ({ KMS_PROVIDER: 'local', KMS_MASTER_KEY_FILE: file });
