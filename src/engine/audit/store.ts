/**
 * Reading the audit chain from the store: the listing (`GET /engine/admin/audit-log`, `tradeseal engine
 * audit-log`), newest first with a `before_id` cursor, and the chain oldest first in pages, for verifying it.
 * Appending is `append.ts`'s.
 */
import type { Sql } from 'postgres';
import { notFound } from '../../core/errors.js';
import type { AuditAction, AuditEntry } from './entry.js';

export interface AuditFilter {
  action?: AuditAction;
  targetId?: string;
  /** Entries at or after this instant. */
  from?: Date;
  /** Entries at or before this instant. */
  to?: Date;
  /** Only entries older than this one (the last entry of the previous page). */
  beforeId?: string;
  limit: number;
}

interface Row extends Omit<AuditEntry, 'at' | 'details'> {
  seq: number;
  at: Date;
  /** The JCS text of the details. */
  details: string;
}

/** An entry with its position in the store's chain order, for paging. */
export interface ChainedEntry {
  seq: number;
  entry: AuditEntry;
}

const toEntry = (r: Row): AuditEntry => ({
  id: r.id,
  at: r.at.toISOString(),
  actor: r.actor,
  action: r.action,
  target_id: r.target_id,
  details: JSON.parse(r.details) as Record<string, unknown>,
  prev_hash: r.prev_hash,
  entry_hash: r.entry_hash,
});

/** A page of entries, newest first; `hasMore` when older ones match too. `not_found` when `beforeId` names no entry. */
export async function listAuditLog(sql: Sql, f: AuditFilter): Promise<{ entries: AuditEntry[]; hasMore: boolean }> {
  let before: number | null = null;
  if (f.beforeId !== undefined) {
    const [row] = await sql<Array<{ seq: number }>>`select seq from audit_log where id = ${f.beforeId}`;
    if (!row) throw notFound(`no audit-log entry ${f.beforeId}`, 'before_id takes the id of the last entry of the previous page');
    before = row.seq;
  }
  const rows = await sql<Row[]>`
    select seq, id, at, actor, action, target_id, details, prev_hash, entry_hash from audit_log
    where true
      ${f.action === undefined ? sql`` : sql`and action = ${f.action}`}
      ${f.targetId === undefined ? sql`` : sql`and target_id = ${f.targetId}`}
      ${f.from === undefined ? sql`` : sql`and at >= ${f.from}`}
      ${f.to === undefined ? sql`` : sql`and at <= ${f.to}`}
      ${before === null ? sql`` : sql`and seq < ${before}`}
    order by seq desc
    limit ${f.limit + 1}`;
  return { entries: rows.slice(0, f.limit).map(toEntry), hasMore: rows.length > f.limit };
}

/** Up to `size` entries of the chain after position `afterSeq` (0: from the first), oldest first. */
export async function chainPage(sql: Sql, afterSeq: number, size: number): Promise<ChainedEntry[]> {
  const rows = await sql<Row[]>`
    select seq, id, at, actor, action, target_id, details, prev_hash, entry_hash from audit_log
    where seq > ${afterSeq} order by seq limit ${size}`;
  return rows.map((r) => ({ seq: r.seq, entry: toEntry(r) }));
}

/** How many entries the chain holds (for progress). */
export async function chainLength(sql: Sql): Promise<number> {
  const [row] = await sql<Array<{ n: number }>>`select count(*)::int as n from audit_log`;
  return row?.n ?? 0;
}
