/**
 * Runs the services: opens the store, applies pending migrations, builds the app and listens.
 * The only file that binds a port; `buildApp` stays testable without one.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { TradesealError } from '../errors.js';
import { migrate } from '../store/migrate.js';
import { openStore, type Store } from '../store/db.js';
import { SERVER_PURPOSE } from '../store/embedded-owner.js';
import { bootstrapOwnerToken } from '../engine/store/tokens.js';
import { startSweeper } from '../engine/sweeper.js';
import { buildApp, SERVICES, type ServiceName } from './app.js';

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  url: string;
  close(): Promise<void>;
}

export interface ServeOptions {
  services?: readonly ServiceName[];
  port?: number;
  host?: string;
  /** Told once when the embedded store is owned by a command (a pipeline run) that the server waits for. */
  onStoreWait?: (owner: { pid: number; purpose?: string }) => void;
}

/**
 * Fails early, with the same error as listening would, when the port is taken: for a start that has long
 * work to do before it listens (`serve --pipeline-if-empty`). Listening itself still decides.
 */
export async function assertPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  const probe = Fastify({ logger: false });
  try {
    await listen(probe, port, host);
  } finally {
    await probe.close();
  }
}

/** Listens, turning "the port is taken" into an error that says what to do. */
async function listen(app: FastifyInstance, port: number, host: string): Promise<string> {
  try {
    return await app.listen({ port, host });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new TradesealError('port_in_use', `port ${port} on ${host} is already in use by another process`, {
        hint: 'choose another port with --port N (or PORT=N), or stop the process that holds it (`lsof -i :PORT` shows which)',
      });
    }
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES') {
      throw new TradesealError('validation_failed', `cannot listen on ${host}:${port} (${code})`, {
        errors: [{ field: '--host / --port', message: code === 'EACCES' ? `port ${port} needs privileges: use a port above 1023` : `${host} is not an address of this machine` }],
      });
    }
    throw err;
  }
}

export async function startServer(config: Config, options: ServeOptions = {}): Promise<RunningServer> {
  // A server owns the embedded store it serves (see embedded-owner.ts); with DATABASE_URL this changes nothing.
  const store = await openStore(config, { purpose: SERVER_PURPOSE, mustOwn: true, ...(options.onStoreWait ? { onWait: options.onStoreWait } : {}) });
  let stopSweeper = (): void => {};
  let app: FastifyInstance | undefined;
  try {
    await migrate(store.sql);
    const services = options.services ?? SERVICES;
    app = await buildApp(config, { sql: store.sql, services });
    if (services.includes('engine')) {
      // ENGINE_OWNER_TOKEN registers the first owner token, once, when the store has no live owner token.
      if (config.engineOwnerToken && (await bootstrapOwnerToken(store.sql, config.engineOwnerToken))) {
        app.log.warn('registered ENGINE_OWNER_TOKEN as the first owner token');
      }
    }
    const url = await listen(app, options.port ?? config.port, options.host ?? config.host);
    // Housekeeping starts only once the server is up: a start that fails leaves no job behind.
    if (services.includes('engine')) {
      const log = app.log;
      stopSweeper = startSweeper(store.sql, Date.now, config.traceExpiryMs, (msg, err) => (err ? log.error({ err }, msg) : log.info(msg)));
    }
    let closed = false;
    const running = app;
    const close = async (): Promise<void> => {
      if (closed) return;
      closed = true;
      stopSweeper();
      await running.close();
      await store.close();
    };
    return { app: running, store, url, close };
  } catch (err) {
    stopSweeper();
    await app?.close().catch(() => {});
    await store.close();
    throw err;
  }
}
