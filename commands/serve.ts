import { Flags } from '@oclif/core';
import { TradesealCommand } from '../src/cli/base-command.js';
import { startServer } from '../src/http/server.js';
import { SERVICES, type ServiceName } from '../src/http/app.js';

export default class Serve extends TradesealCommand {
  static override summary = 'Serve the compliance engine (/engine) and the regime signal service (/v1)';
  static override description = 'Opens the store (DATABASE_URL, or the embedded store under TRADESEAL_HOME), applies pending migrations and listens until SIGINT or SIGTERM, then drains in-flight requests.';
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
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const server = await startServer(this.settings, {
      ...(flags.only ? { services: [flags.only as ServiceName] } : {}),
      ...(flags.port !== undefined ? { port: flags.port } : {}),
      ...(flags.host ? { host: flags.host } : {}),
    });
    const served = flags.only ? [flags.only] : SERVICES;
    this.log(`tradeseal serving ${served.map((s) => (s === 'engine' ? '/engine' : '/v1')).join(' and ')} on ${server.url} (store: ${server.store.kind})`);
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
