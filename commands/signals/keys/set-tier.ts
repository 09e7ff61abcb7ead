import { Args, Flags } from '@oclif/core';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askService, remoteFlags, remoteOf } from '../../../src/cli/signals-client.js';
import { checkRequest, numberOf } from '../../../src/cli/engine-input.js';
import { renderTierChange } from '../../../src/cli/signals-keys-view.js';
import { setTierInput, type SetTierInput } from '../../../src/signals/account-inputs.js';
import { setTier, type TierChange } from '../../../src/signals/ops/keys.js';
import { TIERS } from '../../../src/signals/tiers.js';

const NAMES = { key_id: 'KEY_ID_OR_EMAIL', email: 'KEY_ID_OR_EMAIL' };

export default class SignalsKeysSetTier extends TradesealCommand {
  static override summary = 'Change the tier (and agent count) of an account of the regime signal service';
  static override description =
    'The account is named by the key_id of one of its keys or by its e-mail address. A tier belongs to the account, so every one of its keys has the new tier, its daily limit and its endpoints, from its next request on every server.';
  static override examples = [
    '<%= config.bin %> signals keys set-tier quant@example.com --tier pro',
    '<%= config.bin %> signals keys set-tier 3f1c2b7a-8d4e-4f6a-9b0c-1d2e3f4a5b6c --tier engine_audit --agent-count 5',
  ];
  static override args = {
    key_id_or_email: Args.string({ description: "A key_id (from `tradeseal signals keys list`) or the account's e-mail address", required: true }),
  };
  static override flags = {
    tier: Flags.string({ summary: 'The new tier', helpValue: TIERS.join('|'), required: true }),
    'agent-count': Flags.string({ summary: 'Agents the account runs (unchanged when omitted)', helpValue: 'N' }),
    ...remoteFlags,
  };

  async run(): Promise<TierChange> {
    const { args, flags } = await this.parse(SignalsKeysSetTier);
    const input = checkRequest<SetTierInput>(
      setTierInput,
      {
        ...(args.key_id_or_email.includes('@') ? { email: args.key_id_or_email } : { key_id: args.key_id_or_email }),
        tier: flags.tier,
        ...(flags['agent-count'] === undefined ? {} : { agent_count: numberOf(flags['agent-count']) }),
      },
      'body',
      NAMES,
      args.key_id_or_email.startsWith('rsk_') ? 'that is a key secret; name the key by its key_id (tradeseal signals keys list)' : undefined,
    );
    const remote = await remoteOf(flags, this.settings);
    const change = remote
      ? await askService<TierChange>(remote, 'POST', '/v1/admin/tier', { body: input })
      : await this.withStore((store) => setTier(store.sql, input));
    this.log(renderTierChange(change));
    return change;
  }
}
