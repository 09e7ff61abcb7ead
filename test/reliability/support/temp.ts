/**
 * Temporary directories of the suite (server logs, policy and key files): each test file removes its own in
 * its `afterAll` (`removeTempDirs`), after its servers have stopped.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const dirs = new Set<string>();

export async function tempDir(name: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `tradeseal-reliability-${name}-`));
  dirs.add(dir);
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  dirs.clear();
}
