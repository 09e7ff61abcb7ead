import { TradesealCommand } from '../../src/cli/base-command.js';
import { checkRequest } from '../../src/cli/engine-input.js';
import { limitFlag, renderTraceListing, toListing, type TraceListing } from '../../src/cli/trace-listing.js';
import { listingQuery } from '../../src/engine/inputs.js';
import { listTraces } from '../../src/engine/store/traces.js';

export default class EngineOrphans extends TradesealCommand {
  static override summary = 'List the traces that need an officer: DIVERGENT, EXPIRED, MISMATCH, ORPHAN, and SHADOW_HALTED ones whose verification failed';
  static override description = 'The listing of GET /engine/orphans, newest first.';
  static override examples = ['<%= config.bin %> engine orphans', '<%= config.bin %> engine orphans --limit 1000 --json'];
  static override flags = { limit: limitFlag };

  async run(): Promise<TraceListing> {
    const { flags } = await this.parse(EngineOrphans);
    const { limit } = checkRequest<{ limit: number }>(listingQuery, { limit: flags.limit }, 'querystring');
    const listing = toListing(await this.withStore((store) => listTraces(store.sql, { limit, needsAttention: true })));
    this.log(renderTraceListing(listing, 'traces needing attention (DIVERGENT, EXPIRED, MISMATCH, ORPHAN, failed SHADOW_HALTED)'));
    return listing;
  }
}
