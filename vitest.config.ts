/**
 * Vitest. Two projects (test/setup/projects.ts): every test on the database the global setup chooses
 * (test/setup/global-db.ts), and the store tests that open it again on PGlite, the embedded store.
 *
 * - `forks`: PGlite (WebAssembly) and native sockets are happier in child processes than in worker threads.
 * - `isolate: false`: a worker process runs one file after another and imports the sources once, not once per
 *   file (that import was a tenth of the suite's time). So a test helper keeps no state from one file for the
 *   next (temporary directories are made and removed per file), and nothing changes `process.env` for good.
 * - `maxWorkers`: the cores plus one, three files at a time on two cores (vitest's default would be one: the
 *   cores less one). Much of a file's time is spent waiting on PostgreSQL, a server process, a child CLI or a
 *   timed outage, which the other files fill: with one file per core a whole run left the cores idle 9 % of its
 *   time, with one more 3 %. Files that must not share a server or a port start their own.
 * - `experimental.fsModuleCache`: the sources as transformed are kept under node_modules/.experimental-vitest-cache,
 *   keyed by their content, so a second run transforms only what changed (a fresh checkout, as CI's, has none).
 * - the slow files start first (test/setup/sequencer.ts), and every run closes with its slowest files and tests
 *   (test/setup/slowest-reporter.ts).
 */
import os from 'node:os';
import { defineConfig } from 'vitest/config';
import { MAIN_PROJECT, PGLITE_PROJECT, pgliteFiles } from './test/setup/projects.js';
import SlowFirstSequencer from './test/setup/sequencer.js';

/** Chooses and prepares each project's database; per project, so the root runs none. */
const GLOBAL_SETUP = 'test/setup/global-db.ts';
/** Builds the QuickFIX/C++ exchange peer of the FIX drop-copy tests (main project only: PGlite runs none). */
const QUICKFIX_SETUP = 'test/setup/quickfix-peer.ts';

export default defineConfig({
  test: {
    pool: 'forks',
    isolate: false,
    maxWorkers: Math.max(2, os.availableParallelism()) + 1,
    sequence: { sequencer: SlowFirstSequencer },
    reporters: ['default', './test/setup/slowest-reporter.ts'],
    experimental: { fsModuleCache: true },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: MAIN_PROJECT, include: ['test/**/*.test.ts', 'test/**/*.test.tsx'], globalSetup: [GLOBAL_SETUP, QUICKFIX_SETUP] } },
      { extends: true, test: { name: PGLITE_PROJECT, include: pgliteFiles(import.meta.dirname), globalSetup: [GLOBAL_SETUP] } },
    ],
  },
});
