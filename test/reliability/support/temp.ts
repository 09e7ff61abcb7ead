/**
 * Temporary directories of the suite (server logs, policy and key files): each test file removes its own in
 * its `afterAll` (`removeTempDirs`), after its servers have stopped.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const dirs = new Set<string>();
const shared = new Map<string, Promise<string>>();

export async function tempDir(name: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `tradeseal-reliability-${name}-`));
  dirs.add(dir);
  return dir;
}

/** One directory of that name for the test file's processes, until `removeTempDirs`. */
export function sharedTempDir(name: string): Promise<string> {
  let dir = shared.get(name);
  if (!dir) {
    dir = tempDir(name);
    shared.set(name, dir);
  }
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  // Test files can share this module (vitest's isolate: false): what one file made, it removes and forgets.
  shared.clear();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  dirs.clear();
}
