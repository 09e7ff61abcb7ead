import { TradesealCommand } from '../../src/cli/base-command.js';
import { checkRequest } from '../../src/cli/engine-input.js';
import { calendarDateFlag } from '../../src/cli/instant.js';
import { callService, remoteFlags, remoteOf } from '../../src/cli/signals-client.js';
import { renderPackages } from '../../src/cli/signals-view.js';
import { reportFlags, reportStyle } from '../../src/cli/table-flags.js';
import { RANGE_MAX_DAYS, signalRangeQuery } from '../../src/signals/inputs.js';
import { checkDateRange, checkWindowLength } from '../../src/signals/ops/date-range.js';
import { signalsBetween } from '../../src/signals/store/published.js';
import { signalPackage } from '../../src/signals/views.js';

export default class SignalsRange extends TradesealCommand {
  static override summary = `The signal packages of the published days between two dates (inclusive), at most ${RANGE_MAX_DAYS} calendar days`;
  static override description =
    'The same packages as GET /v1/signals/range, with the same rules (both dates required, start not after end, at most 365 days), from the local store or a remote signal service (--url, --key).';
  static override examples = [
    '<%= config.bin %> signals range --start 2020-03-02 --end 2020-03-31',
    '<%= config.bin %> signals range --start 2025-01-02 --end 2025-06-30 --url https://signals.example.com --key rsk_… --json',
  ];
  static override flags = {
    start: calendarDateFlag({ summary: 'First day, YYYY-MM-DD (inclusive)', required: true }),
    end: calendarDateFlag({ summary: 'Last day, YYYY-MM-DD (inclusive)', required: true }),
    ...remoteFlags,
    ...reportFlags,
  };

  async run(): Promise<Array<Record<string, unknown>>> {
    const { flags } = await this.parse(SignalsRange);
    const { start, end } = checkRequest<{ start: string; end: string }>(signalRangeQuery, { start: flags.start, end: flags.end }, 'querystring');
    checkDateRange(start, end);
    checkWindowLength(start, end, RANGE_MAX_DAYS);
    const remote = await remoteOf(flags, this.settings);
    const packages = remote
      ? await callService<Array<Record<string, unknown>>>(remote, 'GET', '/v1/signals/range', { query: { start, end } })
      : await this.withStore(async (store) => (await signalsBetween(store.sql, start, end)).map(signalPackage));
    this.log(packages.length === 0 ? `no published day between ${start} and ${end}` : renderPackages(packages, reportStyle(flags)));
    return packages;
  }
}
