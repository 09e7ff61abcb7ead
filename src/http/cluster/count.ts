/**
 * How many server processes `tradeseal serve` runs: `--workers`, else SERVE_WORKERS, else one per core with a
 * Postgres server and one with the embedded store. The embedded store (PGlite) is one process with one
 * session, owned by the one server that opened it, so more than one worker on it is a usage error rather
 * than a silent 1: an operator who asks for N processes learns at once why they would not get them.
 */
import os from 'node:os';
import type { Config } from '../../config.js';
import { TradesealError } from '../../errors.js';

export function serveWorkers(flag: number | undefined, config: Pick<Config, 'serveWorkers' | 'databaseUrl'>): number {
  const asked = flag ?? config.serveWorkers;
  if (config.databaseUrl === null) {
    if (asked !== null && asked > 1) {
      const source = flag !== undefined ? `--workers ${flag}` : `SERVE_WORKERS=${asked}`;
      throw new TradesealError('usage_error', `${source} needs DATABASE_URL: the embedded store (PGlite, no DATABASE_URL) is served by one process`, {
        hint: 'set DATABASE_URL to a Postgres server to run several workers, or serve the embedded store with --workers 1',
      });
    }
    return 1;
  }
  return asked ?? os.availableParallelism();
}
