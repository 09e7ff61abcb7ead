import cluster from 'node:cluster';
import { Flags } from '@oclif/core';
import { TradesealCommand } from '../src/cli/base-command.js';
import type { RunningServer, ServeOptions } from '../src/http/server.js';
import { SERVICES, type ServiceName } from '../src/http/services.js';
import { secretsInClearWarning } from '../src/secrets/start.js';

export default class Serve extends TradesealCommand {
  static override storeWork = 'long' as const;
  static override summary = 'Serve the compliance engine (/engine) and the regime signal service (/v1)';
  static override description =
    'Opens the store (DATABASE_URL, or the embedded store under TRADESEAL_HOME), applies pending migrations and listens (HTTPS with TLS_CERT and TLS_KEY, client certificates with TLS_CLIENT_CA) until SIGINT or SIGTERM, then drains in-flight requests. With DATABASE_URL it runs one server process per core on the one port (--workers, SERVE_WORKERS); one of them, elected on the database, runs the background jobs.';
  static override enableJsonFlag = false;
  static override baseFlags = {};
  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --port 9000 --only engine',
    'DATABASE_URL=postgres://tradeseal@db/tradeseal <%= config.bin %> serve --host 0.0.0.0',
    'DATABASE_URL=postgres://tradeseal@db/tradeseal <%= config.bin %> serve --workers 4',
  ];
  static override flags = {
    port: Flags.integer({ summary: 'TCP port (default: PORT, else 8080)', min: 0, max: 65535 }),
    host: Flags.string({ summary: 'Listen address (default: HOST, else 127.0.0.1)' }),
    only: Flags.string({ summary: 'Serve one service only', options: [...SERVICES] }),
    workers: Flags.integer({
      summary:
        'Server processes on the one port (default: SERVE_WORKERS, else one per core with DATABASE_URL, half the cores when PostgreSQL is on this host; the embedded store takes 1)',
      min: 1,
      max: 256,
    }),
    'pipeline-if-empty': Flags.boolean({ summary: 'First run the pipeline on PIPELINE_DATA_DIR when nothing is published yet (what `npm start` does)' }),
    fetch: Flags.boolean({
      summary:
        "With --pipeline-if-empty: first fetch every series and publish what is new, when FRED_API_KEY (and the market source's key) are set and PIPELINE_DATA_DIR is a directory of your own; otherwise say in one line what to set (what `npm start` does)",
      dependsOn: ['pipeline-if-empty'],
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    // The server (Fastify) and the pipeline (DuckDB) load when the command runs, not when the CLI starts.
    const { assertPortFree, startServer } = await import('../src/http/server.js');
    const { serveWorkers } = await import('../src/http/cluster/count.js');
    const options: ServeOptions = {
      ...(flags.only ? { services: [flags.only as ServiceName] } : {}),
      ...(flags.port !== undefined ? { port: flags.port } : {}),
      ...(flags.host ? { host: flags.host } : {}),
    };
    const served = flags.only ? [flags.only] : SERVICES;
    if (cluster.isWorker) {
      // A worker of `serve --workers N`: the primary re-ran this command line in it. It ends the process itself:
      // the cluster's channel would keep it alive after the server has closed.
      const { runWorker } = await import('../src/http/cluster/worker.js');
      process.exit(await runWorker(this.settings, { ...options, startWarnings: (server) => this.startWarnings(server, served) }));
    }
    const workers = serveWorkers(flags.workers, this.settings);
    // A taken port stops the start before the store is opened (made, when the embedded store is new, which takes
    // seconds) and before the pipeline's long first run, not after them. Several workers each report their own.
    if (flags['pipeline-if-empty'] || workers === 1) await assertPortFree(flags.port ?? this.settings.port, flags.host ?? this.settings.host);
    if (flags['pipeline-if-empty']) {
      // Bad TLS files too stop the start before the pipeline's long first run.
      const { ServedTls } = await import('../src/http/tls.js');
      const { listrRunner, renderRunSummary } = await import('../src/cli/pipeline-view.js');
      const { prepareData } = await import('../src/cli/start-data.js');
      ServedTls.load(this.settings);
      await this.withStore(
        async (store) => {
          const summary = await prepareData(
            this.settings,
            store.sql,
            { say: (line) => this.log(line), warn: (line) => this.logToStderr(`warning: ${line}`), runner: listrRunner(false) },
            flags.fetch,
          );
          if (summary) this.log(renderRunSummary(summary));
        },
        { creates: true },
      );
    }
    const paths = served.map((s) => (s === 'engine' ? '/engine' : '/v1')).join(' and ');
    if (workers > 1) {
      const { startCluster } = await import('../src/http/cluster/primary.js');
      const running = await startCluster({ workers, warn: (line) => this.logToStderr(line) });
      this.log(`tradeseal serving ${paths} on ${running.url} (store: ${running.store}, ${workers} workers)`);
      for (const w of running.warnings) this.logToStderr(`warning: ${w}`);
      await new Promise<void>((resolve, reject) => {
        const stop = (signal: NodeJS.Signals): void => {
          this.log(`${signal} received, draining ${workers} workers`);
          running.drain(signal).then(resolve, reject);
        };
        process.on('SIGINT', () => stop('SIGINT'));
        process.on('SIGTERM', () => stop('SIGTERM'));
        running.failed.catch(reject);
      });
      return;
    }
    const server = await startServer(this.settings, {
      ...options,
      onStoreWait: (owner) =>
        this.logToStderr(
          `waiting for process ${owner.pid} (${(owner.purpose ?? 'a command').replace(/:/g, ' ')}) to release the embedded store under ${this.settings.home}…`,
        ),
    });
    this.log(`tradeseal serving ${paths} on ${server.url} (store: ${server.store.kind})`);
    // Read from the store: none while it is away at start (the server's log says it waits), as a worker does.
    for (const w of await this.startWarnings(server, served).catch(() => [])) this.logToStderr(`warning: ${w}`);
    await new Promise<void>((resolve, reject) => {
      const stop = (signal: string): void => {
        this.log(`${signal} received, draining`);
        void server.close().then(resolve);
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
      // A server that waited for its store at start and gave up (or was then refused) ends with that error.
      server.failed.catch((err: unknown) => void server.close().finally(() => reject(err)));
    });
  }

  /**
   * What the health check would tell a monitor (stale or missing regime data), said once at start too, and the
   * secrets the store keeps in clear (without KMS_PROVIDER), which a copy of the store would give away.
   */
  private async startWarnings(server: RunningServer, served: readonly string[]): Promise<string[]> {
    const secrets = await secretsInClearWarning(server.store.sql);
    const health = served.includes('engine') ? ((await server.app.inject({ url: '/engine/health' })).json<{ warnings?: string[] }>().warnings ?? []) : [];
    return [...(secrets ? [secrets] : []), ...health];
  }
}
