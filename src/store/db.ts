/**
 * Opens the store: the Postgres server of `DATABASE_URL`, or without it the embedded PGlite under `TRADESEAL_HOME`.
 *
 * Both are used through one postgres.js handle and one SQL dialect; the embedded store is served over a
 * loopback socket (see `embedded-store.ts`). Opening is lazy for a server (the first query connects) and
 * eager for the embedded store (the directory is opened now). Migrations are not applied here: `serve` and
 * `tradeseal db migrate` call `migrate()`.
 */
import type postgres from 'postgres';
import type { Config } from '../core/config.js';
import { targetOf } from './connect-errors.js';
import { connect } from './driver.js';
import { openEmbeddedStore } from './embedded-store.js';

export { pingStore } from './ping.js';
export type { Sql } from './driver.js';

export interface Store {
  sql: postgres.Sql;
  kind: 'postgres' | 'embedded';
  /**
   * Where `sql` connects. For a server it is `DATABASE_URL` itself and may carry a password: redact before
   * logging. For the embedded store it is the owner's loopback URL.
   */
  url: string;
  /** Whether this open made the store (an embedded store where TRADESEAL_HOME held none); a server's is never made here. */
  created: boolean;
  /**
   * Ends the connections (letting running queries finish for up to 5 s). The embedded store's owner also
   * stops serving, which disconnects other processes using it, and closes PGlite. Idempotent.
   */
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  /** Connections in the pool; default 10. */
  max?: number;
  /**
   * A Postgres server only: the `statement_timeout` of the pool's sessions (the HTTP server passes
   * STORE_STATEMENT_TIMEOUT_MS; commands run without one). Long work opts out (`withoutStatementTimeout`).
   */
  statementTimeoutMs?: number;
  /** Embedded store: what this process does, for others to read in the owner file (`serve`, or a command id). */
  purpose?: string;
  /** Embedded store: own it (wait for a command that owns it to end), as a server must. */
  mustOwn?: boolean;
  /** Embedded store: told once when `mustOwn` waits for another process. */
  onWait?: (owner: { pid: number; purpose?: string }) => void;
}

/** Which store `config` names, for a person: the embedded store's directory, or the server's database (never its password). */
export function storeDescription(config: Pick<Config, 'databaseUrl' | 'home'>): string {
  if (config.databaseUrl === null) return `the embedded store in ${config.home} (TRADESEAL_HOME)`;
  const t = targetOf(config.databaseUrl);
  return `the database ${t.database} on ${t.host}:${t.port} (DATABASE_URL)`;
}

export async function openStore(config: Config, options: OpenStoreOptions = {}): Promise<Store> {
  if (config.databaseUrl !== null) {
    const sql = connect(config.databaseUrl, { ...options, connectTimeoutMs: config.storeConnectTimeoutMs });
    let ending: Promise<void> | undefined;
    return { sql, kind: 'postgres', url: config.databaseUrl, created: false, close: () => (ending ??= sql.end({ timeout: 5 })) };
  }
  // The embedded store is a loopback socket to PGlite, which runs one statement at a time: neither timeout
  // applies (a busy owner process may take a while to accept a connection, and PGlite ignores statement_timeout).
  const embedded = await openEmbeddedStore(config.home, { ...options, statementTimeoutMs: undefined });
  return { ...embedded, kind: 'embedded' };
}
