import { Flags } from '@oclif/core';
import { renderAuditPage } from '../../../src/cli/audit-view.js';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { tableFlags, tableStyle } from '../../../src/cli/table-flags.js';
import { checkRequest, withFlagNames } from '../../../src/cli/engine-input.js';
import { instantFlag } from '../../../src/cli/instant.js';
import { AUDIT_ACTIONS } from '../../../src/engine/audit/entry.js';
import { AUDIT_LIMIT, auditLogQuery, readAuditLog, type AuditLogPage, type AuditLogQuery } from '../../../src/engine/audit/query.js';

export default class EngineAuditLog extends TradesealCommand {
  static override jsonLinesRows = 'entries';
  static override summary = 'List the audit log, newest first: admin actions and refused authorizations';
  static override description =
    "--from and --to bound the entries' time, both inclusive; each is an ISO 8601 date-time with a zone, a date (midnight UTC) or Unix milliseconds. Page to older entries with --before-id (the id the listing ends with). `tradeseal engine audit-log verify` checks the hash chain.";
  static override examples = [
    '<%= config.bin %> engine audit-log',
    '<%= config.bin %> engine audit-log --action authorize.reject --from 2026-03-01',
    '<%= config.bin %> engine audit-log --target-id 0b6f3c1e-2a4d-4c5e-9f1a-7d2b3c4e5f60 --limit 1000 --json',
  ];
  static override flags = {
    action: Flags.string({ summary: 'Only entries of this action', helpValue: AUDIT_ACTIONS.join('|') }),
    from: instantFlag({ summary: 'Only entries at or after this instant' }),
    to: instantFlag({ summary: 'Only entries at or before this instant' }),
    'target-id': Flags.string({ summary: 'Only entries about this agent or token' }),
    'before-id': Flags.string({ summary: 'Only entries older than this one (the last id of the previous page)' }),
    limit: Flags.string({ summary: `How many entries at most (1-${AUDIT_LIMIT.max})`, default: String(AUDIT_LIMIT.default), helpValue: 'N' }),
    ...tableFlags,
    ...engineRemoteFlags,
  };

  async run(): Promise<AuditLogPage> {
    const { flags } = await this.parse(EngineAuditLog);
    // The query string of GET /engine/admin/audit-log, as text: the schema coerces it as it coerces a query string.
    const q = checkRequest<AuditLogQuery>(
      auditLogQuery,
      {
        ...(flags.action === undefined ? {} : { action: flags.action }),
        ...(flags.from ? { from: flags.from.toISOString() } : {}),
        ...(flags.to ? { to: flags.to.toISOString() } : {}),
        ...(flags['target-id'] === undefined ? {} : { target_id: flags['target-id'] }),
        ...(flags['before-id'] === undefined ? {} : { before_id: flags['before-id'] }),
        limit: flags.limit,
      },
      'querystring',
    );
    const remote = await engineRemoteOf(flags, this.settings);
    const page = remote
      ? await askEngine<AuditLogPage>(remote, 'GET', '/engine/admin/audit-log', { query: { ...q } })
      : await this.withStore((store) => withFlagNames({}, () => readAuditLog(store.sql, q)));
    this.log(renderAuditPage(page, tableStyle(flags)));
    return page;
  }
}
