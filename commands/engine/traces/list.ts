import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { assertValid, checkUuid } from '../../../src/cli/engine-input.js';
import { instantFlag } from '../../../src/cli/instant.js';
import { limitFlag, renderTraceListing, toListing, type TraceListing } from '../../../src/cli/trace-listing.js';
import { listTraces } from '../../../src/engine/store/traces.js';
import { TRACE_STATUSES } from '../../../src/engine/vocabulary.js';
import type { FieldError } from '../../../src/errors.js';

export default class EngineTracesList extends TradesealCommand {
  static override summary = 'List sealed traces, newest first, by agent, time window and status';
  static override description = '--from and --to bound txn_time, both inclusive; each is an ISO 8601 date-time with a zone, a date (midnight UTC) or Unix milliseconds.';
  static override examples = [
    '<%= config.bin %> engine traces list',
    '<%= config.bin %> engine traces list --agent-id 0b6f3c1e-2a4d-4c5e-9f1a-7d2b3c4e5f60 --from 2026-03-01 --to 2026-03-02T12:00:00Z',
    '<%= config.bin %> engine traces list --status DIVERGENT --limit 500 --json',
  ];
  static override flags = {
    'agent-id': Flags.string({ summary: 'Only this agent\'s traces' }),
    from: instantFlag({ summary: 'Only traces with txn_time at or after this instant' }),
    to: instantFlag({ summary: 'Only traces with txn_time at or before this instant' }),
    status: Flags.option({ summary: 'Only traces with this listing status', options: TRACE_STATUSES })(),
    limit: limitFlag,
  };

  async run(): Promise<TraceListing> {
    const { flags } = await this.parse(EngineTracesList);
    const errors: FieldError[] = [];
    const agentId = flags['agent-id'] === undefined ? undefined : checkUuid(flags['agent-id'], '--agent-id', errors);
    if (flags.from && flags.to && flags.from > flags.to) {
      errors.push({ field: '--from', message: `${flags.from.toISOString()} is after --to ${flags.to.toISOString()}` });
    }
    assertValid(errors);
    const listing = toListing(await this.withStore((store) => listTraces(store.sql, {
      limit: flags.limit,
      ...(agentId ? { agentIds: [agentId] } : {}),
      ...(flags.from ? { from: flags.from } : {}),
      ...(flags.to ? { to: flags.to } : {}),
      ...(flags.status ? { statuses: [flags.status] } : {}),
    })));
    this.log(renderTraceListing(listing));
    return listing;
  }
}
