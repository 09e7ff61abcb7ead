import { Args } from '@oclif/core';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askService, remoteFlags, remoteOf } from '../../../src/cli/signals-client.js';
import { checkRequest } from '../../../src/cli/engine-input.js';
import { keyParams } from '../../../src/signals/account-inputs.js';
import { revokeKey } from '../../../src/signals/ops/keys.js';

export default class SignalsKeysRevoke extends TradesealCommand {
  static override summary = 'Revoke an API key of the regime signal service at once';
  static override description =
    'Every server refuses the key from its next request (403 key_revoked): each request reads the key from the store. Revoking a revoked key changes nothing and reports when it was revoked. The account and its other keys stay.';
  static override examples = ['<%= config.bin %> signals keys revoke 3f1c2b7a-8d4e-4f6a-9b0c-1d2e3f4a5b6c'];
  static override flags = { ...remoteFlags };
  static override args = {
    key_id: Args.string({ description: 'The key_id (from `tradeseal signals keys list`), not the secret', required: true }),
  };

  async run(): Promise<{ key_id: string; key_prefix: string; email: string; revoked_at: Date; revoked_now: boolean }> {
    const { args, flags } = await this.parse(SignalsKeysRevoke);
    const { key_id: id } = checkRequest<{ key_id: string }>(
      keyParams,
      { key_id: args.key_id },
      'params',
      { key_id: 'KEY_ID' },
      args.key_id.startsWith('rsk_') ? 'that is a key secret; revoke takes its key_id (tradeseal signals keys list)' : undefined,
    );
    const remote = await remoteOf(flags, this.settings);
    const revoked = remote
      ? await askService<Awaited<ReturnType<typeof revokeKey>>>(remote, 'POST', `/v1/admin/keys/${encodeURIComponent(id)}/revoke`)
      : await this.withStore((store) => revokeKey(store.sql, id));
    this.log(
      revoked.revoked_now
        ? `revoked ${revoked.key_id} (${revoked.key_prefix}…, ${revoked.email}) at ${revoked.revoked_at.toISOString()}`
        : `${revoked.key_id} (${revoked.key_prefix}…, ${revoked.email}) was already revoked at ${revoked.revoked_at.toISOString()}`,
    );
    return revoked;
  }
}
