/**
 * Serves a PGlite database over the Postgres wire protocol on 127.0.0.1, so the embedded store is reached
 * through the same postgres.js driver and SQL as a real server.
 *
 * pglite-socket's `PGLiteSocketServer` does the serving; `guardRequestCycles` (see its file) makes its
 * multiplexer safe for several concurrent connections. What stays different from a real server:
 * - PGlite runs on the serving process's main thread: while a query executes, that process's event loop
 *   (its HTTP server, its timers) waits. Keep queries short; a slow one stalls the owner, not only the store.
 * - PGlite is one Postgres session. Queries of all connections run one at a time; a connection inside a
 *   transaction holds every other connection until it commits. So code must never use the outer `sql`
 *   inside `sql.begin(tx => ...)`: on a real server that merely wastes a connection, here it waits forever.
 * - Session state is shared by all connections: `SET`, temporary tables, and session advisory locks,
 *   which therefore never block (every connection is the same session, and these locks are re-entrant).
 * - Cancel requests are ignored and SSL is refused (the client falls back to plain TCP on loopback).
 * - There is no authentication: any local user who can reach the port can use the database. It listens on
 *   loopback only; the embedded store is for one machine, one user, and trying things out.
 */
import type { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { guardRequestCycles } from './pglite-cycle-guard.js';

const HOST = '127.0.0.1';

export interface EmbeddedServer {
  port: number;
  /** A `postgres://` URL for postgres.js; PGlite has the one user and database `postgres`. */
  url: string;
  /** Stops listening and drops connected clients. Does not close the PGlite, which the caller owns. */
  stop(): Promise<void>;
}

export interface ServeOptions {
  /**
   * Simultaneous client connections, across every process; beyond it a new socket is dropped. Default 64:
   * sockets are cheap (queries run one at a time anyway), and the owner's pool plus a few CLI processes'
   * pools must fit.
   */
  maxConnections?: number;
}

export const embeddedUrl = (port: number): string => `postgres://postgres@${HOST}:${port}/postgres`;

/** Listens on a free loopback port chosen by the OS. */
export async function serveEmbedded(db: PGlite, options: ServeOptions = {}): Promise<EmbeddedServer> {
  const server = new PGLiteSocketServer({
    db: guardRequestCycles(db),
    host: HOST,
    port: 0,
    maxConnections: options.maxConnections ?? 64,
  });
  await server.start();
  // The server learns its OS-assigned port on listening and only exposes it as "host:port".
  const port = Number(server.getServerConn().split(':').pop());
  return { port, url: embeddedUrl(port), stop: () => server.stop() };
}
