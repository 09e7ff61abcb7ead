import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { renderDropCopyRejects } from '../../../src/cli/dropcopy-view.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { checkRequest } from '../../../src/cli/engine-input.js';
import { tableFlags, tableStyle } from '../../../src/cli/table-flags.js';
import { listDropCopyRejects, type DropCopyReject } from '../../../src/engine/dropcopy/status.js';
import { listingLimit, listingQuery } from '../../../src/engine/inputs.js';

export default class EngineDropCopyRejects extends TradesealCommand {
  static override jsonLinesRows = 'rejects';
  static override summary = 'List the inbound FIX messages the drop-copy session refused, newest first';
  static override description =
    'Each as received (raw, | for SOH), with how it was answered at the FIX level (reject: 35=3, business_reject: 35=j, none: not a message, which the peer resends), ' +
    'the reason code (373 or 380) and tag (371) sent, and why. On the local store or a remote engine (GET /engine/admin/dropcopy/rejects, an owner or auditor token).';
  static override examples = [
    '<%= config.bin %> engine dropcopy rejects',
    '<%= config.bin %> engine dropcopy rejects --limit 20 --columns received_at,seq,reason',
    '<%= config.bin %> engine dropcopy rejects --csv > refused.csv',
  ];

  static override flags = {
    limit: Flags.string({
      summary: `How many messages at most (${listingLimit.minimum}-${listingLimit.maximum})`,
      default: String(listingLimit.default),
      helpValue: 'N',
    }),
    ...tableFlags,
    ...engineRemoteFlags,
  };

  async run(): Promise<{ count: number; rejects: DropCopyReject[] }> {
    const { flags } = await this.parse(EngineDropCopyRejects);
    const { limit } = checkRequest<{ limit: number }>(listingQuery, { limit: flags.limit }, 'querystring');
    const remote = await engineRemoteOf(flags, this.settings);
    const rejects = remote
      ? (await askEngine<{ rejects: DropCopyReject[] }>(remote, 'GET', '/engine/admin/dropcopy/rejects', { query: { limit } })).rejects
      : await this.withStore((store) => listDropCopyRejects(store.sql, limit));
    this.log(renderDropCopyRejects(rejects, tableStyle(flags)));
    return { count: rejects.length, rejects };
  }
}
