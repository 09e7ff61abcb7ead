import { Args } from '@oclif/core';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { assertValid, checkUuid } from '../../../src/cli/engine-input.js';
import { revokeToken } from '../../../src/engine/store/tokens.js';
import { notFound, type FieldError } from '../../../src/errors.js';

export default class EngineTokensRevoke extends TradesealCommand {
  static override summary = 'Revoke an engine token at once';
  static override description = 'Every engine instance refuses the token from its next request (401). Revoking a revoked token changes nothing and reports when it was revoked.';
  static override examples = ['<%= config.bin %> engine tokens revoke 3f1c2b7a-8d4e-4f6a-9b0c-1d2e3f4a5b6c'];
  static override args = {
    id: Args.string({ description: 'The token_id (from `tradeseal engine tokens list`), not the secret', required: true }),
  };

  async run(): Promise<{ token_id: string; revoked_at: Date }> {
    const { args } = await this.parse(EngineTokensRevoke);
    const errors: FieldError[] = [];
    const id = checkUuid(args.id, 'ID', errors);
    assertValid(errors, args.id.startsWith('tse_') ? 'that is a token secret; revoke takes its token_id (tradeseal engine tokens list)' : undefined);
    const revoked = await this.withStore((store) => revokeToken(store.sql, id));
    if (!revoked) throw notFound(`no token ${id}`);
    this.log(`revoked ${revoked.token_id} at ${revoked.revoked_at.toISOString()}`);
    return revoked;
  }
}
