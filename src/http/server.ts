/**
 * Runs the services: opens the store, applies pending migrations, builds the app and listens.
 * The only file that binds a port; `buildApp` stays testable without one.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { migrate } from '../store/migrate.js';
import { openStore, type Store } from '../store/db.js';
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
}

export async function startServer(config: Config, options: ServeOptions = {}): Promise<RunningServer> {
  const store = await openStore(config);
  let stopSweeper = (): void => {};
  try {
    await migrate(store.sql);
    const services = options.services ?? SERVICES;
    const app = await buildApp(config, { sql: store.sql, services });
    if (services.includes('engine')) {
      // ENGINE_OWNER_TOKEN registers the first owner token, once, when the store has no live owner token.
      if (config.engineOwnerToken && (await bootstrapOwnerToken(store.sql, config.engineOwnerToken))) {
        app.log.warn('registered ENGINE_OWNER_TOKEN as the first owner token');
      }
      stopSweeper = startSweeper(store.sql, Date.now, config.traceExpiryMs, (msg, err) => (err ? app.log.error({ err }, msg) : app.log.info(msg)));
    }
    const url = await app.listen({ port: options.port ?? config.port, host: options.host ?? config.host });
    let closed = false;
    const close = async (): Promise<void> => {
      if (closed) return;
      closed = true;
      stopSweeper();
      await app.close();
      await store.close();
    };
    return { app, store, url, close };
  } catch (err) {
    stopSweeper();
    await store.close();
    throw err;
  }
}
