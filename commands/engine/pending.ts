import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { limitFlag, renderTraceListing, toListing, type TraceListing } from '../../src/cli/trace-listing.js';
import { listTraces } from '../../src/engine/store/traces.js';

export default class EnginePending extends TradesealCommand {
  static override summary = 'List PENDING traces (authorized, never bound) older than an age';
  static override description = 'Orders authorized but with no execution bound yet; past TRACE_EXPIRY_MS the sweeper turns them EXPIRED.';
  static override examples = ['<%= config.bin %> engine pending', '<%= config.bin %> engine pending --age-seconds 600 --limit 200 --json'];
  static override flags = {
    'age-seconds': Flags.integer({ summary: 'Only traces authorized at least this many seconds ago', default: 3600, min: 0, max: 31_622_400 }),
    limit: limitFlag,
  };

  async run(): Promise<TraceListing & { age_seconds: number }> {
    const { flags } = await this.parse(EnginePending);
    const olderThan = new Date(Date.now() - flags['age-seconds'] * 1000);
    const listing = toListing(await this.withStore((store) => listTraces(store.sql, { limit: flags.limit, statuses: ['PENDING'], olderThan })));
    this.log(renderTraceListing(listing, `pending traces older than ${flags['age-seconds']} s`));
    return { age_seconds: flags['age-seconds'], ...listing };
  }
}
