import { TradesealCommand } from '../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../src/cli/engine-client.js';
import { renderRegimeStatus } from '../../src/cli/regime-view.js';
import { terminalOf } from '../../src/cli/terminal.js';
import { wrapText } from '../../src/cli/wrap.js';
import { freshnessOf, type Freshness } from '../../src/engine/policy/freshness.js';
import { loadPolicy } from '../../src/engine/policy/policy.js';
import { currentRegime, type RegimeBroadcast } from '../../src/store/regime-broadcasts.js';
import { TradesealError } from '../../src/core/errors.js';

export default class RegimeShow extends TradesealCommand {
  static override summary = 'Show the regime broadcast in force, with its hash, whether an override holds, and how old its data are';
  static override description =
    "The newest broadcast, from the pipeline or an operator; its hash is the mta_ref a heartbeat must carry. Its data are stale when older than the policy's regime_max_age_ms (POLICY_PATH), counted from the end of the broadcast's date: authorize then refuses every order (regime_stale). Exit code 3 when none is published (authorize fails closed then too).";
  static override examples = ['<%= config.bin %> regime show', '<%= config.bin %> regime show --json'];

  static override flags = { ...engineRemoteFlags };

  async run(): Promise<RegimeBroadcast & { freshness: Freshness }> {
    const { flags } = await this.parse(RegimeShow);
    const remote = await engineRemoteOf(flags, this.settings);
    if (remote) {
      // The engine's answer, judged by its own policy.
      const served = await askEngine<RegimeBroadcast & { freshness: Freshness }>(remote, 'GET', '/engine/regime');
      this.log(wrapText(renderRegimeStatus(served, served.freshness), terminalOf().width));
      return served;
    }
    const policy = loadPolicy(this.settings.policyPath);
    const broadcast = await this.withStore((store) => currentRegime(store.sql));
    if (!broadcast) {
      throw new TradesealError('regime_not_published', 'no regime is published yet; authorize fails closed (regime_stale) until one is', {
        hint: 'run the pipeline, or publish one: tradeseal regime publish --regime REGIME --risk-score 0..1 --reason TEXT',
      });
    }
    const freshness = freshnessOf(broadcast.date, policy.document.regime_max_age_ms, Date.now());
    this.log(wrapText(renderRegimeStatus(broadcast, freshness), terminalOf().width));
    return { ...broadcast, freshness };
  }
}
