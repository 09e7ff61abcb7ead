/**
 * The home in which `tradeseal pipeline run` published the bundled history: where the documented-output checker
 * starts each `published` document (scripts/docs/check/workspace.ts, `makePublishedTemplate`). Made once per
 * test run, by the first file that asks (test/docs/outputs.test.ts; a test that needs a published history of
 * the whole bundled data starts here rather than with a pipeline run of its own), in the run's scratch
 * directory; every document copies it, so none writes to it.
 * Files ask at the same time: the maker holds a lock directory, the others wait for it, then find the home made
 * (moved into place only when complete).
 */
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { makePublishedTemplate, type Toolbox } from '../../scripts/docs/check/workspace.js';
import { TEST_SCRATCH_KEY } from '../setup/test-db-info.js';

/** The maker's deadline: a full pipeline run on two busy cores. */
const DEADLINE_MS = 600_000;

/** The shared home; `box` is the asking file's toolbox (its CLI shim), used only if this file makes it. */
export async function sharedDocsTemplate(box: Toolbox): Promise<string> {
  const dir = path.join(inject(TEST_SCRATCH_KEY), 'docs-template');
  const home = path.join(dir, 'home');
  const lock = path.join(dir, 'lock');
  await fs.mkdir(dir, { recursive: true });
  const giveUp = Date.now() + DEADLINE_MS + 60_000;
  for (;;) {
    try {
      await fs.mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() > giveUp) throw new Error(`the shared docs template in ${dir} was not made in time by another test file`);
      await sleep(200);
    }
  }
  try {
    if (!existsSync(home)) await fs.rename((await makePublishedTemplate(box, DEADLINE_MS)).home, home);
    return home;
  } finally {
    await fs.rm(lock, { recursive: true, force: true });
  }
}
