import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../src/cli/engine-client.js';
import { tableFlags, tableStyle } from '../../src/cli/table-flags.js';
import { checkRequest } from '../../src/cli/engine-input.js';
import { limitFlag, renderTraceListing, toListing, type TraceListing } from '../../src/cli/trace-listing.js';
import { pendingQuery } from '../../src/engine/inputs.js';
import { listTraces } from '../../src/engine/store/traces.js';

const { age_seconds: ageSeconds } = pendingQuery.properties;

export default class EnginePending extends TradesealCommand {
  static override jsonLinesRows = 'traces';
  static override summary = 'List PENDING traces (authorized, never bound) older than an age';
  static override description = 'Orders authorized but with no execution bound yet; past TRACE_EXPIRY_MS the sweeper turns them EXPIRED.';
  static override examples = ['<%= config.bin %> engine pending', '<%= config.bin %> engine pending --age-seconds 600 --limit 200 --json'];
  static override flags = {
    'age-seconds': Flags.string({
      summary: `Only traces authorized at least this many seconds ago (${ageSeconds.minimum}-${ageSeconds.maximum}, default ${ageSeconds.default})`,
      helpValue: 'SECONDS',
    }),
    limit: limitFlag,
    ...tableFlags,
    ...engineRemoteFlags,
  };

  async run(): Promise<TraceListing & { age_seconds: number }> {
    const { flags } = await this.parse(EnginePending);
    // The query string of GET /engine/pending, as text; the schema fills in the default age.
    const q = checkRequest<{ age_seconds: number; limit: number }>(
      pendingQuery,
      {
        ...(flags['age-seconds'] === undefined ? {} : { age_seconds: flags['age-seconds'] }),
        limit: flags.limit,
      },
      'querystring',
    );
    const olderThan = new Date(Date.now() - q.age_seconds * 1000);
    const remote = await engineRemoteOf(flags, this.settings);
    const listing = remote
      ? await askEngine<TraceListing>(remote, 'GET', '/engine/pending', { query: { age_seconds: q.age_seconds, limit: q.limit } })
      : toListing(await this.withStore((store) => listTraces(store.sql, { limit: q.limit, statuses: ['PENDING'], olderThan })));
    this.log(renderTraceListing(listing, `pending traces older than ${q.age_seconds} s`, tableStyle(flags)));
    return { age_seconds: q.age_seconds, ...listing };
  }
}
