import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { tableFlags, tableStyle } from '../../../src/cli/table-flags.js';
import { renderTokens } from '../../../src/cli/engine-views.js';
import { listTokens, type TokenRecord } from '../../../src/engine/store/tokens.js';

export default class EngineTokensList extends TradesealCommand {
  static override jsonLinesRows = 'tokens';
  static override summary = 'List engine tokens (never their secrets)';
  static override description = 'Newest first, live, revoked and expired alike; the store holds no secret to show.';
  static override examples = ['<%= config.bin %> engine tokens list', '<%= config.bin %> engine tokens list --json'];

  static override flags = { ...tableFlags, ...engineRemoteFlags };

  async run(): Promise<{ count: number; tokens: TokenRecord[] }> {
    const { flags } = await this.parse(EngineTokensList);
    const remote = await engineRemoteOf(flags, this.settings);
    const tokens = remote
      ? (await askEngine<{ tokens: TokenRecord[] }>(remote, 'GET', '/engine/admin/tokens')).tokens
      : await this.withStore((store) => listTokens(store.sql));
    this.log(renderTokens(tokens, tableStyle(flags)));
    return { count: tokens.length, tokens };
  }
}
