/** Terminal views of the audit log for `tradeseal engine audit-log` and `… audit-log verify`: plain text, no colours. */
import type { AuditLogPage } from '../engine/audit/query.js';
import type { ChainVerification } from '../engine/audit/verify.js';
import { renderTable, type TableStyle } from './table.js';

/** The details of an entry on one line, as compact JSON. */
const oneLine = (details: Record<string, unknown>): string => {
  const text = JSON.stringify(details);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
};

/** A page, newest first, with the cursor of the next one. */
export function renderAuditPage(page: AuditLogPage, style: TableStyle = {}): string {
  if (page.count === 0) return 'no audit-log entries';
  const table = renderTable(
    ['at', 'action', 'actor', 'target_id', 'details', 'entry_hash'],
    page.entries.map((e) => [e.at, e.action, e.actor, e.target_id, style.csv ? JSON.stringify(e.details) : oneLine(e.details), style.csv ? e.entry_hash : `${e.entry_hash.slice(0, 16)}…`]),
    style,
  );
  if (style.csv) return table;
  return `${table}\n${page.count} shown${page.has_more ? `; older entries: --before-id ${page.next_before_id}` : ''}`;
}

export function renderChainVerification(v: ChainVerification): string {
  return `audit chain valid: ${v.entries} entr${v.entries === 1 ? 'y' : 'ies'}, head ${v.head}\nkeep the head elsewhere: a chain cannot show entries cut off its end`;
}
