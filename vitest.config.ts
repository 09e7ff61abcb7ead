/**
 * Vitest: the global setup picks and prepares the test database (see test/setup/global-db.ts); `forks`
 * because PGlite (WebAssembly) and native sockets are happier in child processes than in worker threads.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    globalSetup: ['test/setup/global-db.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
