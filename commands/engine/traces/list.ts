import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { tableFlags, tableStyle } from '../../../src/cli/table-flags.js';
import { checkRequest, withFlagNames } from '../../../src/cli/engine-input.js';
import { instantFlag } from '../../../src/cli/instant.js';
import { limitFlag, renderTraceListing, toListing, type TraceListing } from '../../../src/cli/trace-listing.js';
import { tracesQuery } from '../../../src/engine/inputs.js';
import { checkTraceWindow } from '../../../src/engine/ops/trace-window.js';
import { listTraces } from '../../../src/engine/store/traces.js';
import { TRACE_STATUSES, type TraceStatus } from '../../../src/core/vocabulary.js';

interface TracesQuery {
  agent_id?: string;
  from?: number;
  to?: number;
  status?: TraceStatus;
  limit: number;
  search?: string;
}

export default class EngineTracesList extends TradesealCommand {
  static override jsonLinesRows = 'traces';
  static override summary = 'List sealed traces, newest first, by agent, time window and status';
  static override description =
    '--from and --to bound txn_time, both inclusive; each is an ISO 8601 date-time with a zone, a date (midnight UTC) or Unix milliseconds.';
  static override examples = [
    '<%= config.bin %> engine traces list',
    '<%= config.bin %> engine traces list --agent-id 0b6f3c1e-2a4d-4c5e-9f1a-7d2b3c4e5f60 --from 2026-03-01 --to 2026-03-02T12:00:00Z',
    '<%= config.bin %> engine traces list --status DIVERGENT --limit 500 --json',
  ];
  static override flags = {
    'agent-id': Flags.string({ summary: "Only this agent's traces" }),
    from: instantFlag({ summary: 'Only traces with txn_time at or after this instant' }),
    to: instantFlag({ summary: 'Only traces with txn_time at or before this instant' }),
    status: Flags.string({ summary: 'Only traces with this listing status', helpValue: TRACE_STATUSES.join('|') }),
    search: Flags.string({ summary: 'Only traces whose agent id starts with this text or whose asset contains it (case-insensitive)', helpValue: 'TEXT' }),
    limit: limitFlag,
    ...tableFlags,
    ...engineRemoteFlags,
  };

  async run(): Promise<TraceListing> {
    const { flags } = await this.parse(EngineTracesList);
    // The query string of GET /engine/traces, as text: the schema coerces it as it coerces a query string.
    const q = checkRequest<TracesQuery>(
      tracesQuery,
      {
        ...(flags['agent-id'] === undefined ? {} : { agent_id: flags['agent-id'] }),
        ...(flags.from ? { from: String(flags.from.getTime()) } : {}),
        ...(flags.to ? { to: String(flags.to.getTime()) } : {}),
        ...(flags.status === undefined ? {} : { status: flags.status }),
        ...(flags.search === undefined ? {} : { search: flags.search }),
        limit: flags.limit,
      },
      'querystring',
    );
    await withFlagNames({}, () => checkTraceWindow(q.from, q.to));
    const remote = await engineRemoteOf(flags, this.settings);
    const listing = remote
      ? await askEngine<TraceListing>(remote, 'GET', '/engine/traces', { query: { ...q } })
      : toListing(
          await this.withStore((store) =>
            listTraces(store.sql, {
              limit: q.limit,
              ...(q.agent_id ? { agentIds: [q.agent_id] } : {}),
              ...(q.from !== undefined ? { from: new Date(q.from) } : {}),
              ...(q.to !== undefined ? { to: new Date(q.to) } : {}),
              ...(q.status ? { statuses: [q.status] } : {}),
              search: q.search ?? null,
            }),
          ),
        );
    this.log(renderTraceListing(listing, 'traces', tableStyle(flags)));
    return listing;
  }
}
