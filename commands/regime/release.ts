import { Flags } from '@oclif/core';
import { cliActor } from '../../src/cli/actor.js';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../src/cli/engine-client.js';
import { renderBroadcast } from '../../src/cli/engine-views.js';
import { releaseOperatorOverride } from '../../src/engine/ops/regime.js';
import { currentRegime, type RegimeBroadcast, type Release } from '../../src/store/regime-broadcasts.js';
import { TradesealError } from '../../src/core/errors.js';

export default class RegimeRelease extends TradesealCommand {
  static override summary = "Release the operator's override: the newest published day's regime is in force again";
  static override description =
    'A manual broadcast (`tradeseal regime publish`) holds until it is released or replaced by another. Releasing it broadcasts the regime of the newest day the pipeline published, on every engine instance within ENGINE_STATE_REFRESH_MS. It changes what the engine enforces, so it asks for confirmation on a terminal; elsewhere pass --yes. Exit code 4 when no override is in force.';
  static override examples = ['<%= config.bin %> regime release', '<%= config.bin %> regime release --reason "exchange back to normal" --yes --json'];
  static override flags = {
    reason: Flags.string({ summary: 'Why the override ends (kept with the new broadcast)' }),
    yes: Flags.boolean({ summary: 'Confirm without asking (for scripts)' }),
    ...engineRemoteFlags,
  };

  async run(): Promise<Release> {
    const { flags } = await this.parse(RegimeRelease);
    const reason = flags.reason?.trim() || null;
    const overrideInForce = async (current: RegimeBroadcast | null): Promise<void> => {
      if (current?.source !== 'manual') {
        throw new TradesealError(
          'regime_override_not_in_force',
          current
            ? `the broadcast in force (#${current.id}, ${current.regime} on ${current.date}) comes from the pipeline, not from an operator`
            : 'no regime is published at all',
        );
      }
      await this.confirmDestructive(
        `Release override #${current.id} (${current.regime}, by ${current.published_by ?? 'unknown'}) and enforce the newest published day's regime again?`,
        flags.yes,
      );
    };
    const remote = await engineRemoteOf(flags, this.settings);
    const release = remote
      ? await (async () => {
          await overrideInForce(
            await askEngine<RegimeBroadcast>(remote, 'GET', '/engine/regime').catch((e: unknown) => {
              if (e instanceof TradesealError && e.code === 'regime_not_published') return null;
              throw e;
            }),
          );
          return askEngine<Release>(remote, 'POST', '/engine/admin/regime/release', { body: reason === null ? {} : { reason } });
        })()
      : await this.withStore(async (store) => {
          await overrideInForce(await currentRegime(store.sql));
          return releaseOperatorOverride(store.sql, cliActor(), reason);
        });
    this.log(`released override #${release.released.id} (${release.released.regime}); in force now:\n${renderBroadcast(release.broadcast)}`);
    return release;
  }
}
