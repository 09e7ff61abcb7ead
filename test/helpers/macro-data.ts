/**
 * Copies of the bundled macro data (data/macro) cut at a date, for runs that need less history than the
 * bundle has: every CSV keeps its header and the rows dated up to `last`; other files are copied as they are.
 * The copy lives in a temporary directory removed after the test file.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { REPO_ROOT } from './cli.js';

export const BUNDLED_DATA = path.join(REPO_ROOT, 'data/macro');

/** A copy of the bundled data without the rows after `last` (YYYY-MM-DD). Call it in a test or a hook. */
export async function macroDataThrough(last: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tradeseal-data-'));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  for (const file of await readdir(BUNDLED_DATA)) {
    const text = await readFile(path.join(BUNDLED_DATA, file), 'utf8');
    if (!file.endsWith('.csv')) {
      await writeFile(path.join(dir, file), text);
      continue;
    }
    const lines = text.split('\n');
    const kept = lines.filter((l, i) => i === 0 || (l !== '' && l.slice(0, 10) <= last));
    await writeFile(path.join(dir, file), `${kept.join('\n')}\n`);
  }
  return dir;
}
