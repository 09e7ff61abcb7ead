/**
 * Writing a file so that readers see the old contents or the new, never half of either: the text goes to a
 * temporary file in the same directory, is flushed to disk, and replaces the file by a rename (atomic on
 * POSIX file systems), the directory flushed after it. Used for refreshed data files and the exports (CSV, Arrow, Parquet).
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** Writes the chunks `write` produces to `file` through a temporary file and a rename. */
export async function writeFileAtomically(file: string, write: (append: (chunk: string | Uint8Array) => Promise<void>) => Promise<void>): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'w');
    try {
      await write(async (chunk) => {
        await handle.writeFile(chunk, 'utf8');
      });
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
    // The rename is a change of the directory: flushed too, so a crash after it cannot bring the old file back.
    const dir = await open(path.dirname(file), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } catch (e) {
    await rm(temp, { force: true });
    throw e;
  }
}

/** Writes `text` to `file` through a temporary file in the same directory and a rename. */
export const writeFileAtomic = (file: string, text: string): Promise<void> => writeFileAtomically(file, (append) => append(text));
