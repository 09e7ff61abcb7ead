import { TradesealCommand } from '../../src/cli/base-command.js';
import { renderBroadcast } from '../../src/cli/engine-views.js';
import { currentRegime, type RegimeBroadcast } from '../../src/engine/store/regime.js';
import { TradesealError } from '../../src/errors.js';

export default class RegimeShow extends TradesealCommand {
  static override summary = 'Show the regime broadcast in force, with its hash';
  static override description = 'The newest broadcast, from the pipeline or manual; its hash is the mta_ref a heartbeat must carry. Exit code 3 when none is published (authorize then fails closed: regime_stale).';
  static override examples = ['<%= config.bin %> regime show', '<%= config.bin %> regime show --json'];

  async run(): Promise<RegimeBroadcast> {
    await this.parse(RegimeShow);
    const broadcast = await this.withStore((store) => currentRegime(store.sql));
    if (!broadcast) {
      throw new TradesealError('regime_not_published', 'no regime is published yet; authorize fails closed (regime_stale) until one is', {
        hint: 'run the pipeline, or publish one: tradeseal regime publish --regime REGIME --risk-score 0..1 --reason TEXT',
      });
    }
    this.log(renderBroadcast(broadcast));
    return broadcast;
  }
}
