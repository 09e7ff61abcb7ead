/**
 * Reading the audit log, as `GET /engine/admin/audit-log` and `tradeseal engine audit-log` both do: the query
 * schema (the route validates its query string with it, the CLI its flags), and the one operation both call.
 *
 * `from` and `to` are ISO 8601 date-times with a zone, both inclusive; a window that ends before it starts is
 * `validation_failed` on `from`. `before_id` is the id of the last entry of the previous page (newest first);
 * one that names no entry is `not_found`. `limit` defaults to 100, at most 1000.
 */
import type { Sql } from 'postgres';
import { validationError } from '../../core/errors.js';
import { uuid } from '../schemas.js';
import { AUDIT_ACTIONS, type AuditAction, type AuditEntry } from './entry.js';
import { listAuditLog } from './store.js';

export const AUDIT_LIMIT = { default: 100, max: 1000 } as const;

/** RFC 3339 date-time with a zone; Postgres has no year 0000, which the format admits. */
const instant = {
  type: 'string',
  format: 'date-time',
  pattern: '^(?!0000)',
  description: 'ISO 8601 date-time with a zone, e.g. 2026-03-01T00:00:00Z',
} as const;

export const auditLogQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    action: { type: 'string', enum: [...AUDIT_ACTIONS] },
    target_id: { ...uuid, description: 'the agent or token acted on' },
    from: { ...instant, description: 'entries at or after this instant (ISO 8601 date-time with a zone)' },
    to: { ...instant, description: 'entries at or before this instant (ISO 8601 date-time with a zone)' },
    before_id: { ...uuid, description: 'the id of the last entry of the previous page: only older entries' },
    limit: { type: 'integer', minimum: 1, maximum: AUDIT_LIMIT.max, default: AUDIT_LIMIT.default },
  },
} as const;

export interface AuditLogQuery {
  action?: AuditAction;
  target_id?: string;
  from?: string;
  to?: string;
  before_id?: string;
  limit: number;
}

export interface AuditLogPage {
  count: number;
  has_more: boolean;
  /** The `before_id` of the next page (the id of this page's last entry) when there is one, else null. */
  next_before_id: string | null;
  entries: AuditEntry[];
}

/** A page of the audit log, newest first, for a query the schema accepted. */
export async function readAuditLog(sql: Sql, q: AuditLogQuery): Promise<AuditLogPage> {
  const from = q.from === undefined ? undefined : new Date(q.from);
  const to = q.to === undefined ? undefined : new Date(q.to);
  for (const [field, d] of [
    ['from', from],
    ['to', to],
  ] as const) {
    // The format admits a leap second (…:60), which no Date holds.
    if (d !== undefined && Number.isNaN(d.getTime())) throw validationError([{ field, message: 'is not an instant a clock can show' }]);
  }
  if (from && to && from > to) {
    throw validationError([{ field: 'from', message: `must not be later than the end of the window (${to.toISOString()})` }]);
  }
  const { entries, hasMore } = await listAuditLog(sql, {
    limit: q.limit,
    ...(q.action ? { action: q.action } : {}),
    ...(q.target_id ? { targetId: q.target_id } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
    ...(q.before_id ? { beforeId: q.before_id } : {}),
  });
  return { count: entries.length, has_more: hasMore, next_before_id: hasMore ? (entries.at(-1)?.id ?? null) : null, entries };
}
