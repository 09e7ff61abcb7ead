/**
 * The data directory a fetch writes into. The bundled `data/macro` is part of the package, byte-for-byte copies
 * of published files with their provenance (data/macro/PROVENANCE.md), which the tests and the documented outputs rest
 * on: a fetch never changes it. A deployment fetches into a directory of its own (`PIPELINE_DATA_DIR`), seeded
 * with a copy of the bundled files (`tradeseal pipeline fetch --init`).
 */
import { copyFile, mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { TradesealError } from '../../src/core/errors.js';
import { packageRoot } from '../../src/store/migration-files.js';

/** The package's bundled data directory. */
export const bundledDataDir = (): string => path.join(packageRoot(), 'data', 'macro');

export const isBundledDataDir = (dir: string): boolean => path.resolve(dir) === path.resolve(bundledDataDir());

/** Refuses to write into the bundled data: the error says what to do instead. */
export function assertFetchable(dir: string, setting: string): void {
  if (!isBundledDataDir(dir)) return;
  throw new TradesealError(
    'precondition_failed',
    `${setting} is the bundled data (${dir}), which a fetch never changes: they are the package's copies of published files`,
    {
      hint: 'set PIPELINE_DATA_DIR to a directory of your own; `tradeseal pipeline fetch --init` seeds it with a copy of the bundled files',
    },
  );
}

/** Copies every bundled file `dir` lacks into it (making it if need be); returns the files copied. Files it has are kept. */
export async function seedDataDir(dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const copied: string[] = [];
  for (const file of (await readdir(bundledDataDir())).sort()) {
    const target = path.join(dir, file);
    if (
      await stat(target).then(
        () => true,
        () => false,
      )
    )
      continue;
    await copyFile(path.join(bundledDataDir(), file), target);
    copied.push(file);
  }
  return copied;
}
