import { TradesealCommand } from '../../src/cli/base-command.js';
import { callService, remoteFlags, remoteOf } from '../../src/cli/signals-client.js';
import { renderSignalPackage } from '../../src/cli/signals-view.js';
import { terminalOf } from '../../src/cli/terminal.js';
import { wrapText } from '../../src/cli/wrap.js';
import { notFound } from '../../src/core/errors.js';
import { latestSignal } from '../../src/signals/store/published.js';
import { signalPackage } from '../../src/signals/views.js';

export default class SignalsLatest extends TradesealCommand {
  static override summary = 'The signal package of the newest published trading day: regime, probabilities, liquidity, factors';
  static override description =
    'The same package as GET /v1/signals/latest, from the local store, or from a remote signal service with --url and --key (or SIGNALS_URL and SIGNALS_KEY).';
  static override examples = ['<%= config.bin %> signals latest', '<%= config.bin %> signals latest --url https://signals.example.com --key rsk_… --json'];
  static override flags = { ...remoteFlags };

  async run(): Promise<Record<string, unknown>> {
    const { flags } = await this.parse(SignalsLatest);
    const remote = await remoteOf(flags, this.settings);
    const pkg = remote
      ? await callService<Record<string, unknown>>(remote, 'GET', '/v1/signals/latest')
      : await this.withStore(async (store) => {
          const row = await latestSignal(store.sql);
          if (!row) throw notFound('no published day yet', 'run the pipeline: `tradeseal pipeline run`');
          return signalPackage(row);
        });
    this.log(wrapText(renderSignalPackage(pkg), terminalOf().width));
    return pkg;
  }
}
