/**
 * Vitest: the global setup picks and prepares the test database (see test/setup/global-db.ts).
 *
 * - `forks`: PGlite (WebAssembly) and native sockets are happier in child processes than in worker threads.
 * - `isolate: false`: a worker process runs one file after another and imports the sources once, not once per
 *   file (that import was a tenth of the suite's time). So a test helper keeps no state from one file for the
 *   next (temporary directories are made and removed per file), and nothing changes `process.env` for good.
 * - `maxWorkers: 2`: two files at a time, on this project's machines' two cores (vitest's default would be
 *   one: the cores less one); much of a file's time is spent waiting on PostgreSQL, a server process or a
 *   child CLI, which the other file fills. Files that must not share a server or a port start their own.
 * - the slow files start first (test/setup/sequencer.ts), and every run closes with its slowest files and tests
 *   (test/setup/slowest-reporter.ts).
 */
import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/setup/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    globalSetup: ['test/setup/global-db.ts'],
    pool: 'forks',
    isolate: false,
    maxWorkers: 2,
    sequence: { sequencer: SlowFirstSequencer },
    reporters: ['default', './test/setup/slowest-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
