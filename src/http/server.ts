/**
 * Runs the services: reads the TLS files (HTTPS when configured), opens the store, applies pending
 * migrations, checks (and with a key-management provider seals) the secrets the store keeps, builds the app
 * and listens. A Postgres store that does not answer at start is waited for while the server listens and
 * answers 503 (./store-start.ts); the background jobs start once the store is prepared.
 * The only file that binds a port; `buildApp` stays testable without one.
 */
import type { AddressInfo } from 'node:net';
import type { Server as TlsServer } from 'node:tls';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from '../core/config.js';
import { TradesealError } from '../core/errors.js';
import { migrate } from '../store/migrate.js';
import { openStore, type Store } from '../store/db.js';
import { SERVER_PURPOSE } from '../store/embedded-owner.js';
import { ADVISORY_LOCKS } from '../store/advisory-lock.js';
import { electLeader } from '../store/leader.js';
import { bootstrapOwnerToken } from '../engine/store/tokens.js';
import { checkKeyring, dataKeysFrom } from '../secrets/kms/from-config.js';
import { keepStoredSecrets } from '../secrets/start.js';
import { secretKeeperFrom } from '../secrets/stored-secret.js';
import { CredentialChanges, type Siblings } from '../credentials/changes.js';
import { listenForChanges } from '../credentials/notify.js';
import type { WebhookWorkerOptions } from '../signals/webhooks/worker.js';
import { buildApp, SERVICES, type ServiceName } from './app.js';
import { capConnections, refusalLog } from '../core/net/connection-caps.js';
import { ServerMetrics } from './metrics.js';
import { startSingletons } from './singletons.js';
import { storeAwayOrThrow, waitForStore, type StoreWait } from './store-start.js';
import { ServedTls, TLS_RELOAD_MS } from './tls.js';

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  url: string;
  /** Rejects when a server that waits for its store at start gives up (STORE_START_WAIT_S), or the store then refuses it. */
  failed: Promise<never>;
  close(): Promise<void>;
}

export interface ServeOptions {
  services?: readonly ServiceName[];
  port?: number;
  host?: string;
  /** Told once when the embedded store is owned by a command (a pipeline run) that the server waits for. */
  onStoreWait?: (owner: { pid: number; purpose?: string }) => void;
  /** The webhook worker's timing (tests shorten the poll interval and the retry schedule). */
  webhooks?: Omit<WebhookWorkerOptions, 'allowPrivate' | 'log' | 'secrets'>;
  /** How often the TLS files are read again to pick up a renewed certificate (tests shorten it). */
  tlsReloadMs?: number;
  /**
   * `run` (default): this server runs the background jobs itself. `elect`: only while it is the elected leader
   * of the servers on its database (a worker of `serve --workers N`; src/store/leader.ts). The embedded store
   * always runs them: it has one server.
   */
  singletons?: 'run' | 'elect';
  /** How often a follower tries to take the lead (tests shorten it). */
  leaderRetryMs?: number;
  /** Told when this server starts or stops running the background jobs. */
  onLeadership?: (leading: boolean) => void;
  /** Sent as `X-Served-By` on every answer: which worker of `serve --workers N` answered (its pid). */
  servedBy?: string;
  /** What `GET /metrics` answers instead of this server's own registry (a worker answers for every worker). */
  exposition?: (metrics: ServerMetrics) => () => Promise<string>;
  /** The other workers of `serve --workers N`, which a credential change must reach before it is answered. */
  siblings?: Siblings;
  /** The pauses between attempts to reach a store away at start (tests shorten them; ./store-start.ts). */
  storeRetry?: { firstMs: number; capMs: number };
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
        errors: [
          {
            field: '--host / --port',
            message: code === 'EACCES' ? `port ${port} needs privileges: use a port above 1023` : `${host} is not an address of this machine`,
          },
        ],
        hint:
          code === 'EACCES'
            ? 'choose a port above 1023 with --port N (or PORT=N)'
            : 'listen on an address of this machine with --host (127.0.0.1, or 0.0.0.0 for every interface)',
      });
    }
    throw err;
  }
}

export async function startServer(config: Config, options: ServeOptions = {}): Promise<RunningServer> {
  // A server owns the embedded store it serves (see embedded-owner.ts); with DATABASE_URL this changes nothing.
  // Bad TLS files stop the start before anything is opened, naming each file and what is wrong with it.
  const tls = ServedTls.load(config);
  // The server's statements are bounded (STORE_STATEMENT_TIMEOUT_MS), so no request waits on a stuck store;
  // migrations below run on a connection of their own without the bound.
  const store = await openStore(config, {
    purpose: SERVER_PURPOSE,
    mustOwn: true,
    statementTimeoutMs: config.storeStatementTimeoutMs,
    ...(options.onStoreWait ? { onWait: options.onStoreWait } : {}),
  });
  let stopSingletons = async (): Promise<void> => {};
  let stopDropCopy = async (): Promise<void> => {};
  let stopTlsReload = (): void => {};
  let stopListening = async (): Promise<void> => {};
  let app: FastifyInstance | undefined;
  let storeWait: StoreWait | null = null;
  try {
    const services = options.services ?? SERVICES;
    // The secrets the store keeps: those sealed must open with the key settings, and with a provider those still
    // in clear are sealed now (src/secrets/start.ts); a store with sealed secrets does not start without one.
    const secrets = secretKeeperFrom(config);
    let kept = { sealed: 0 };
    let registered = false;
    // What the start does on the store. After a wait the engine was built without the store, so the keyring
    // check it makes (src/engine/context.ts) is made here. ENGINE_OWNER_TOKEN registers the first owner token,
    // once, when the store has no live owner token.
    const prepare = async (afterWait: boolean): Promise<void> => {
      await migrate(store.sql);
      kept = await keepStoredSecrets(store.sql, secrets);
      if (afterWait && services.includes('engine')) await checkKeyring(store.sql, dataKeysFrom(config));
      if (services.includes('engine') && config.engineOwnerToken) registered = (await bootstrapOwnerToken(store.sql, config.engineOwnerToken)) !== null;
    };
    // A Postgres store that does not answer now is waited for (unless STORE_START_WAIT_S is 0); a store that
    // refuses DATABASE_URL, and any other failure, ends the start with its code and hint.
    let away: TradesealError | null = null;
    try {
      await prepare(false);
    } catch (err) {
      if (store.kind !== 'postgres') throw err;
      away = storeAwayOrThrow(err, store.url);
      if (config.storeStartWaitS === 0) throw away;
    }
    let storeReady = away === null;
    const metrics = new ServerMetrics(store.sql);
    if (options.exposition) metrics.exposition = options.exposition(metrics);
    // Token revocations, key rotations and tier changes: held on every worker before they are answered, and
    // heard from other servers on the database by LISTEN (the embedded store has one server: nothing to hear).
    const changes = new CredentialChanges({ refreshMs: config.stateRefreshMs, siblings: options.siblings ?? null, warn: (line) => app?.log.warn(line) });
    // The app sees where it is served (--port, --host), which names its links without PUBLIC_BASE_URL
    // (src/core/public-base-url.ts); port 0's actual port is known once listening.
    let servedPort = options.port ?? config.port;
    const served: Config = Object.freeze({
      ...config,
      host: options.host ?? config.host,
      get port(): number {
        return servedPort;
      },
    });
    app = await buildApp(served, { sql: store.sql, services, tls, metrics, changes, storeReady: () => storeReady });
    const built = app;
    const prepared = (): void => {
      if (kept.sealed > 0) built.log.info(`sealed ${kept.sealed} secret(s) the store kept in clear, under ${secrets.provider!.description}`);
      if (registered) built.log.warn('registered ENGINE_OWNER_TOKEN as the first owner token');
    };
    if (store.kind === 'postgres') {
      const listening = listenForChanges(
        store.url,
        changes,
        { warn: (line) => built.log.warn(line), info: (line) => built.log.info(line) },
        { connectTimeoutMs: config.storeConnectTimeoutMs },
      );
      stopListening = () => listening.stop();
    }
    const servedBy = options.servedBy;
    if (servedBy) app.addHook('onRequest', async (_req, reply) => void reply.header('x-served-by', servedBy));
    // No client can hold more than its share of the process's connections (src/core/net/connection-caps.ts).
    const caps = { maxConnections: config.httpMaxConnections, perAddress: config.httpMaxConnectionsPerAddress, exempt: config.trustProxy };
    const serverLog = app.log;
    const logRefusal = refusalLog((msg) => serverLog.warn(msg), caps);
    capConnections(app.server, caps, (reason, address) => {
      metrics.refusedConnections.inc({ reason });
      logRefusal(reason, address);
    });
    const url = await listen(app, served.port, served.host);
    servedPort = (app.server.address() as AddressInfo).port;
    if (tls) {
      const log = app.log;
      const status = tls.expiryStatus();
      if (status !== 'ok')
        log.warn(
          `the server certificate of ${tls.subject} ${status === 'expired' ? 'expired' : 'expires'} on ${tls.notAfter.toISOString()}: renew TLS_CERT (the server picks up the new file without a restart)`,
        );
      stopTlsReload = tls.watch(app.server as unknown as TlsServer, options.tlsReloadMs ?? TLS_RELOAD_MS, (level, msg) => log[level](msg));
    }
    // Housekeeping starts only once the server is up and its store prepared: a start that fails leaves no job behind.
    const log = app.log;
    const startJobs = async (): Promise<void> => {
      const singletons = { services, metrics, log, ...(options.webhooks ? { webhooks: options.webhooks } : {}) };
      const tell = options.onLeadership ?? (() => {});
      if (options.singletons === 'elect' && store.kind === 'postgres') {
        let stopJobs = async (): Promise<void> => {};
        const election = electLeader(store.sql, ADVISORY_LOCKS.leader, {
          ...(options.leaderRetryMs ? { retryMs: options.leaderRetryMs } : {}),
          onElected: () => {
            log.info(`process ${process.pid} leads: it runs the background jobs`);
            stopJobs = startSingletons(store.sql, config, singletons);
            tell(true);
          },
          onDeposed: async () => {
            await stopJobs();
            tell(false);
          },
          log: (msg, err) => (err ? log.warn({ err }, msg) : log.warn(msg)),
        });
        stopSingletons = () => election.stop();
      } else {
        stopSingletons = startSingletons(store.sql, config, singletons);
        tell(true);
      }
      // The FIX drop copy: every server with the engine stands, the holder of its own lock runs it (runner.ts), on
      // a thread of its own with a PostgreSQL server (thread.ts); jspurefix is loaded only when a session is configured.
      if (config.dropCopy && services.includes('engine')) {
        const retry = options.leaderRetryMs ? { retryMs: options.leaderRetryMs } : {};
        if (store.kind === 'postgres') {
          const { startDropCopyThread } = await import('../engine/dropcopy/thread.js');
          const runner = startDropCopyThread({ url: store.url, config, log, metrics, ...retry });
          stopDropCopy = () => runner.stop();
        } else {
          const { startDropCopyRunner } = await import('../engine/dropcopy/runner.js');
          const runner = startDropCopyRunner({ sql: store.sql, config, log, metrics, ...retry });
          stopDropCopy = () => runner.stop();
        }
      }
    };
    let settleFailed: (err: unknown) => void = () => {};
    const failed = new Promise<never>((_, reject) => (settleFailed = reject));
    failed.catch(() => {});
    if (away === null) {
      prepared();
      await startJobs();
    } else {
      storeWait = waitForStore(() => prepare(true), away, {
        databaseUrl: store.url,
        waitS: config.storeStartWaitS,
        log,
        ...(options.storeRetry ? { retry: options.storeRetry } : {}),
      });
      storeWait.done
        .then(async () => {
          prepared();
          storeReady = true;
          await startJobs();
        })
        .catch(settleFailed);
    }
    let closed = false;
    const running = app;
    const close = async (): Promise<void> => {
      if (closed) return;
      closed = true;
      await storeWait?.stop();
      await stopDropCopy();
      await stopSingletons();
      stopTlsReload();
      await running.close();
      await stopListening();
      await store.close();
    };
    return { app: running, store, url, failed, close };
  } catch (err) {
    await storeWait?.stop();
    await stopDropCopy();
    await stopSingletons();
    stopTlsReload();
    await app?.close().catch(() => {});
    await stopListening();
    await store.close();
    throw err;
  }
}
