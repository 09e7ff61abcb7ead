import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { tableFlags, tableStyle } from '../../../src/cli/table-flags.js';
import { askService, remoteFlags, remoteOf } from '../../../src/cli/signals-client.js';
import { checkRequest } from '../../../src/cli/engine-input.js';
import { renderKeys } from '../../../src/cli/signals-keys-view.js';
import { listKeysQuery } from '../../../src/signals/account-inputs.js';
import { listKeys, type KeyListing } from '../../../src/signals/store/accounts.js';
import { normalizeEmail } from '../../../src/signals/verification.js';

export default class SignalsKeysList extends TradesealCommand {
  static override jsonLinesRows = 'keys';
  static override summary = 'List the API keys of the regime signal service (never their secrets)';
  static override description =
    "Newest first, live and revoked alike, with the account's e-mail and tier and when each key was last used; the store holds no secret to show, only SHA-256 hashes and the first characters of each key.";
  static override examples = [
    '<%= config.bin %> signals keys list',
    '<%= config.bin %> signals keys list --email quant@example.com --json',
    '<%= config.bin %> signals keys list --url https://signals.example --key "$OWNER_KEY"',
  ];
  static override flags = {
    email: Flags.string({ summary: 'Only the keys of this account' }),
    ...tableFlags,
    ...remoteFlags,
  };

  async run(): Promise<{ count: number; keys: KeyListing[] }> {
    const { flags } = await this.parse(SignalsKeysList);
    const email =
      flags.email === undefined
        ? undefined
        : normalizeEmail(checkRequest<{ email: string }>(listKeysQuery, { email: flags.email }, 'querystring', { email: '--email' }).email);
    const remote = await remoteOf(flags, this.settings);
    const keys = remote
      ? (await askService<{ keys: KeyListing[] }>(remote, 'GET', '/v1/admin/keys', { query: { email } })).keys
      : await this.withStore((store) => listKeys(store.sql, { email }));
    this.log(renderKeys(keys, tableStyle(flags)));
    return { count: keys.length, keys };
  }
}
