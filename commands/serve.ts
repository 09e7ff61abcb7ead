import { Flags } from '@oclif/core';
import { TradesealCommand } from '../src/cli/base-command.js';
import { listrRunner, renderRunSummary } from '../src/cli/pipeline-view.js';
import { hasPublishedSignals } from '../src/signals/store/history.js';
import { runPipeline } from '../pipeline/run.js';
import { assertPortFree, startServer } from '../src/http/server.js';
import { SERVICES, type ServiceName } from '../src/http/app.js';
import { ServedTls } from '../src/http/tls.js';

export default class Serve extends TradesealCommand {
  static override summary = 'Serve the compliance engine (/engine) and the regime signal service (/v1)';
  static override description = 'Opens the store (DATABASE_URL, or the embedded store under TRADESEAL_HOME), applies pending migrations and listens (HTTPS with TLS_CERT and TLS_KEY, client certificates with TLS_CLIENT_CA) until SIGINT or SIGTERM, then drains in-flight requests.';
  static override enableJsonFlag = false;
  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --port 9000 --only engine',
    'DATABASE_URL=postgres://tradeseal@db/tradeseal <%= config.bin %> serve --host 0.0.0.0',
  ];
  static override flags = {
    port: Flags.integer({ summary: 'TCP port (default: PORT, else 8080)', min: 0, max: 65535 }),
    host: Flags.string({ summary: 'Listen address (default: HOST, else 127.0.0.1)' }),
    only: Flags.string({ summary: 'Serve one service only', options: [...SERVICES] }),
    'pipeline-if-empty': Flags.boolean({ summary: 'First run the pipeline on PIPELINE_DATA_DIR when nothing is published yet (what `npm start` does)' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    if (flags['pipeline-if-empty']) {
      // A taken port or bad TLS files stop the start before the pipeline's long first run, not after it.
      await assertPortFree(flags.port ?? this.settings.port, flags.host ?? this.settings.host);
      ServedTls.load(this.settings);
      await this.withStore(async (store) => {
        if (await hasPublishedSignals(store.sql)) return;
        this.log('nothing is published yet: running the pipeline on the bundled data first');
        const summary = await runPipeline(store.sql, { dataDir: this.settings.pipelineDataDir, asOf: null, seed: this.settings.pipelineSeed }, { runner: listrRunner(false) });
        this.log(renderRunSummary(summary));
      });
    }
    const server = await startServer(this.settings, {
      ...(flags.only ? { services: [flags.only as ServiceName] } : {}),
      ...(flags.port !== undefined ? { port: flags.port } : {}),
      ...(flags.host ? { host: flags.host } : {}),
      onStoreWait: (owner) => this.logToStderr(`waiting for process ${owner.pid} (${(owner.purpose ?? 'a command').replace(/:/g, ' ')}) to release the embedded store under ${this.settings.home}…`),
    });
    const served = flags.only ? [flags.only] : SERVICES;
    this.log(`tradeseal serving ${served.map((s) => (s === 'engine' ? '/engine' : '/v1')).join(' and ')} on ${server.url} (store: ${server.store.kind})`);
    // What the health check would tell a monitor (stale or missing regime data), said once at start too.
    if (served.includes('engine')) {
      const health = (await server.app.inject({ url: '/engine/health' })).json<{ warnings?: string[] }>();
      for (const w of health.warnings ?? []) this.logToStderr(`warning: ${w}`);
    }
    await new Promise<void>((resolve) => {
      const stop = (signal: string): void => {
        this.log(`${signal} received, draining`);
        void server.close().then(resolve);
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
  }
}
