import { Args } from '@oclif/core';
import { cliActor } from '../../../src/cli/actor.js';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { idHint, prefixRange, resolveIdPrefix } from '../../../src/cli/id-prefix.js';
import { checkRequest } from '../../../src/cli/engine-input.js';
import { tokenParams } from '../../../src/engine/inputs.js';
import { revokeEngineToken } from '../../../src/engine/ops/tokens.js';

export default class EngineTokensRevoke extends TradesealCommand {
  static override summary = 'Revoke an engine token at once';
  static override description =
    'Every engine instance refuses the token from its next request (401). Revoking a revoked token changes nothing and reports when it was revoked.';
  static override examples = ['<%= config.bin %> engine tokens revoke 3f1c2b7a-8d4e-4f6a-9b0c-1d2e3f4a5b6c'];
  static override flags = { ...engineRemoteFlags };
  static override args = {
    id: Args.string({
      description: 'The token_id (from `tradeseal engine tokens list`), or its first characters (at least 4) when they name one token; not the secret',
      required: true,
    }),
  };

  async run(): Promise<{ token_id: string; revoked_at: Date }> {
    const { args, flags } = await this.parse(EngineTokensRevoke);
    const remote = await engineRemoteOf(flags, this.settings);
    if (remote || !prefixRange(args.id)) {
      checkRequest(
        tokenParams,
        { token_id: args.id },
        'params',
        { token_id: 'ID' },
        args.id.startsWith('tse_') ? 'that is a token secret; revoke takes its token_id (tradeseal engine tokens list)' : idHint('token', remote !== null),
      );
    }
    const revoked = remote
      ? await askEngine<{ token_id: string; revoked_at: Date }>(remote, 'DELETE', `/engine/admin/tokens/${encodeURIComponent(args.id)}`)
      : await this.withStore(async (store) => revokeEngineToken(store.sql, await resolveIdPrefix(store.sql, 'token', args.id), cliActor()));
    this.log(`revoked ${revoked.token_id} at ${revoked.revoked_at.toISOString()}`);
    return revoked;
  }
}
