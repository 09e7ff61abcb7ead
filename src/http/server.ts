/**
 * Runs the services: opens the store, applies pending migrations, builds the app and listens.
 * The only file that binds a port; `buildApp` stays testable without one.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { migrate } from '../store/migrate.js';
import { openStore, type Store } from '../store/db.js';
import { buildApp, type ServiceName } from './app.js';

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
  try {
    await migrate(store.sql);
    const app = await buildApp(config, { sql: store.sql, ...(options.services ? { services: options.services } : {}) });
    const url = await app.listen({ port: options.port ?? config.port, host: options.host ?? config.host });
    let closed = false;
    const close = async (): Promise<void> => {
      if (closed) return;
      closed = true;
      await app.close();
      await store.close();
    };
    return { app, store, url, close };
  } catch (err) {
    await store.close();
    throw err;
  }
}
