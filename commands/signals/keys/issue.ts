import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askService, remoteFlags, remoteOf } from '../../../src/cli/signals-client.js';
import { checkRequest, numberOf } from '../../../src/cli/engine-input.js';
import { renderIssuedKey } from '../../../src/cli/signals-keys-view.js';
import { issueKeyInput, type IssueKeyInput } from '../../../src/signals/account-inputs.js';
import { issueAccountKey, type IssuedKey } from '../../../src/signals/ops/keys.js';
import { TIERS } from '../../../src/signals/tiers.js';

export default class SignalsKeysIssue extends TradesealCommand {
  static override summary = 'Issue an API key of the regime signal service and print it once';
  static override description =
    'Creates the account of the e-mail address when it has none, with the tier and agent count given; an existing account keeps its tier (a different --tier or --agent-count is refused: change it with `signals keys set-tier`). The key is printed once; the store keeps only its SHA-256. No mail is sent.';
  static override examples = [
    '<%= config.bin %> signals keys issue --email quant@example.com --tier starter',
    '<%= config.bin %> signals keys issue --email ops@example.com --tier engine_audit --agent-count 5 --json',
  ];
  static override flags = {
    email: Flags.string({ summary: "The account's e-mail address", required: true }),
    tier: Flags.string({ summary: "The account's tier", helpValue: TIERS.join('|'), required: true }),
    'agent-count': Flags.string({ summary: 'Agents the account runs (default 0; the audit decomposition needs 3)', helpValue: 'N' }),
    ...remoteFlags,
  };

  async run(): Promise<IssuedKey> {
    const { flags } = await this.parse(SignalsKeysIssue);
    const input = checkRequest<IssueKeyInput>(
      issueKeyInput,
      {
        email: flags.email,
        tier: flags.tier,
        ...(flags['agent-count'] === undefined ? {} : { agent_count: numberOf(flags['agent-count']) }),
      },
      'body',
    );
    const remote = await remoteOf(flags, this.settings);
    const issued = remote
      ? await askService<IssuedKey>(remote, 'POST', '/v1/admin/keys', { body: input })
      : await this.withStore((store) => issueAccountKey(store.sql, input));
    this.log(renderIssuedKey(issued));
    return issued;
  }
}
