/**
 * `buildApp(config, deps)`: the Fastify application of both services, ready for `inject()` in tests.
 * Listening is done elsewhere (src/http/server.ts), so tests need no port.
 *
 * One process serves the compliance engine (`/engine`) and the regime signal service (`/v1`) by default,
 * or only one of them (`services: ['engine']`), each behind the same error handling, validation,
 * request ids and OpenAPI document.
 */
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { Sql } from 'postgres';
import type { Config } from '../core/config.js';
import { CredentialChanges } from '../credentials/changes.js';
import { createEngineContext, type EngineContext } from '../engine/context.js';
import { engineHealth } from './engine/health.js';
import { engineRoutes } from './engine/index.js';
import { createSignalsContext, type SignalsContext } from '../signals/context.js';
import { signalsRoutes } from './signals/index.js';
import { installClientCertificateCheck } from './client-cert.js';
import { clientErrorHandler, trackEarlyAnswers } from './client-error.js';
import { answerFrameworkError, installErrorHandling, schemaErrorFormatter } from './error-handler.js';
import { registerHealth, type CertExpiryStatus } from './health.js';
import { installIrlEdge, irlRewriteUrl } from './irl/index.js';
import { installJsonBodyParser } from './json-body.js';
import { installStrictQueryString } from './query-encoding.js';
import { logDestination } from './log-pretty.js';
import { logRedaction } from './log-redaction.js';
import { installMetrics, ServerMetrics } from './metrics.js';
import { installOpenApi } from './openapi.js';
import { registerProbes } from './probes.js';
import { genRequestId, installRequestIdHeader } from './request-id.js';
import { installStoreGate, type StoreReady } from './store-gate.js';
import { httpsBoundOptions, requestBoundOptions } from './request-bounds.js';
import { installRequestDeadline, requestDeadlineMs } from './deadline.js';
import type { ServedTls } from './tls.js';
import { validatorCompiler } from '../core/validation.js';

import { SERVICES, type ServiceName } from './services.js';

export { SERVICES, type ServiceName };

/** 1 MiB: the body limit of the interface decisions (413 above it). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface AppDeps {
  sql: Sql;
  services?: readonly ServiceName[];
  certExpiryStatus?: () => CertExpiryStatus | null;
  /** Serve HTTPS with these files (src/http/tls.ts), asking for client certificates when they include TLS_CLIENT_CA. */
  tls?: ServedTls | null;
  /** Log to stderr at `config.logLevel`; tests pass false. */
  logger?: boolean;
  /** The engine's context; built from `config` when not given (tests pass one to control policy and clock). */
  engine?: EngineContext;
  /** The signal service's context; built from `config` when not given (tests pass one to control the clock). */
  signals?: SignalsContext;
  /** The server's metrics (`GET /metrics`); the server passes its own so the sweeper can report to it. */
  metrics?: ServerMetrics;
  /** Where the log lines go: standard error by default, so standard output stays the commands' own (JSON, or readable: ./log-pretty.ts). */
  logStream?: NodeJS.WritableStream;
  /**
   * Where credential changes reach the caches of both services (src/credentials/changes.ts); the server passes
   * its own, which also reaches the other workers and hears other servers. Used for the contexts built here.
   */
  changes?: CredentialChanges;
  /** Serve the IRL Engine's clients on `/irl/...` (src/http/irl/); on by default, off only to compare answers in tests. */
  irl?: boolean;
  /**
   * Whether the store is prepared (a server that waits for its store at start: src/http/store-start.ts). Until
   * it is, the store's routes, /readyz and health answer 503 with `Retry-After` (./store-gate.ts). Default: ready.
   */
  storeReady?: StoreReady;
}

export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const services = deps.services ?? SERVICES;
  const irl = deps.irl !== false && services.includes('engine');
  const app = Fastify({
    // Query values, error details and personal fields never reach the log, at any level (./log-redaction.ts).
    logger:
      deps.logger === false || config.logLevel === 'silent'
        ? false
        : { level: config.logLevel, stream: logDestination(config.logFormat, deps.logStream ?? process.stderr), ...logRedaction },
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: genRequestId,
    logController: new LogController({
      requestIdLogLabel: 'reqId',
      disableRequestLogging: config.logLevel !== 'debug' && config.logLevel !== 'trace',
    }),
    ajv: { customOptions: { allErrors: true, removeAdditional: false } },
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: answerFrameworkError,
    schemaErrorFormatter,
    clientErrorHandler,
    // How long a client may take over each phase of a request (src/http/request-bounds.ts).
    ...requestBoundOptions(config),
    // The client address is X-Forwarded-For's only when a trusted proxy sent it.
    trustProxy: config.trustProxy ? [...config.trustProxy] : false,
    ...(deps.tls ? { https: { ...deps.tls.httpsOptions(), ...httpsBoundOptions(config) } } : {}),
    // `/irl/...` is routed to the `/engine` route that serves it (src/http/irl/paths.ts).
    ...(irl ? { rewriteUrl: irlRewriteUrl } : {}),
  }) as FastifyInstance;
  app.setValidatorCompiler(validatorCompiler);
  installErrorHandling(app);
  installJsonBodyParser(app);
  installStrictQueryString(app);
  installRequestIdHeader(app);
  trackEarlyAnswers(app);
  installRequestDeadline(app, requestDeadlineMs(config));
  await installOpenApi(app, config);
  if (deps.tls?.mutual) installClientCertificateCheck(app, deps.tls);
  installMetrics(app, deps.metrics ?? new ServerMetrics(deps.sql));
  const storeReady = deps.storeReady ?? (() => true);
  if (deps.storeReady) installStoreGate(app, deps.storeReady);
  registerProbes(app, deps.sql, storeReady);

  const tls = deps.tls;
  const certExpiryStatus = deps.certExpiryStatus ?? (tls ? () => tls.expiryStatus() : undefined);
  const health = { sql: deps.sql, storeReady, ...(certExpiryStatus ? { certExpiryStatus } : {}) };
  const changes = deps.changes ?? new CredentialChanges({ refreshMs: config.stateRefreshMs });
  if (services.includes('engine')) {
    const engine = deps.engine ?? (await createEngineContext(config, deps.sql, { changes }));
    registerHealth(app, '/engine/health', 'engine', { ...health, details: () => engineHealth(engine) });
    if (!deps.engine)
      app.addHook('onClose', async () => {
        engine.state.stop();
        engine.tokens.stop();
      });
    if (irl) installIrlEdge(app, engine);
    await app.register(engineRoutes, { ctx: engine });
  }
  if (services.includes('signals')) {
    registerHealth(app, '/v1/health', 'signals', health);
    const signals = deps.signals ?? createSignalsContext(config, deps.sql, { changes });
    if (!deps.signals) app.addHook('onClose', async () => signals.close());
    await app.register(signalsRoutes, { ctx: signals });
  }

  return app;
}
