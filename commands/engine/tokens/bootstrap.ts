import { cliActor } from '../../../src/cli/actor.js';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { renderIssuedToken } from '../../../src/cli/engine-views.js';
import { bootstrapOwnerToken, type IssuedToken } from '../../../src/engine/store/tokens.js';
import { conflict } from '../../../src/core/errors.js';

export default class EngineTokensBootstrap extends TradesealCommand {
  static override summary = 'Register the first owner token and print it once';
  static override description =
    'Only when no live owner token exists (an advisory lock keeps two concurrent runs from both registering one). The secret is printed once; the store keeps only its SHA-256.';
  static override examples = ['<%= config.bin %> engine tokens bootstrap', '<%= config.bin %> engine tokens bootstrap --json'];

  async run(): Promise<IssuedToken> {
    await this.parse(EngineTokensBootstrap);
    const issued = await this.withStore((store) => bootstrapOwnerToken(store.sql, undefined, cliActor()), { creates: true });
    if (!issued) {
      throw conflict(
        'owner_token_exists',
        'a live owner token already exists; bootstrap only registers the first one',
        'issue another owner token with `tradeseal engine tokens issue --client-name NAME --role owner` (see them with `tradeseal engine tokens list`)',
      );
    }
    this.log(renderIssuedToken(issued));
    return issued;
  }
}
