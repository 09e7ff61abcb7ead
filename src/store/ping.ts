/**
 * The store's health check: can it answer `select 1` within a short time?
 *
 * Used by readiness probes, which need a yes or no, never an exception, and never a request that hangs
 * because the database does.
 */
import type { Sql } from './driver.js';

export async function pingStore(sql: Sql, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const query = sql<{ ok: number }[]>`select 1 as ok`;
    const answered = query.then(
      (rows) => rows[0]?.ok === 1,
      () => false, // also catches an answer that arrives after the timeout, which nobody awaits
    );
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => {
        // A real server stops the query; PGlite ignores cancel requests, harmless either way.
        query.cancel();
        resolve(false);
      }, timeoutMs);
    });
    return await Promise.race([answered, timedOut]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
