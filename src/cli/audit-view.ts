/** Terminal views of the audit log for `tradeseal engine audit-log` and `… audit-log verify`: plain text, no colours. */
import type { AnchorCheck, AnchoredChainVerification } from '../engine/audit/anchor-check.js';
import type { SignedAuditCheckpoint } from '../engine/audit/checkpoint.js';
import type { AuditLogPage } from '../engine/audit/query.js';
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
    page.entries.map((e) => [
      e.at,
      e.action,
      e.actor,
      e.target_id,
      style.csv ? JSON.stringify(e.details) : oneLine(e.details),
      style.csv ? e.entry_hash : `${e.entry_hash.slice(0, 16)}…`,
    ]),
    style,
  );
  if (style.csv) return table;
  return `${table}\n${page.count} shown${page.has_more ? `; older entries: --before-id ${page.next_before_id}` : ''}`;
}

const entries = (n: number): string => `${n} entr${n === 1 ? 'y' : 'ies'}`;
const at = (ms: number): string => new Date(ms).toISOString();

function anchorLine(label: string, a: AnchorCheck, keyOrigin: string): string {
  const c = a.checkpoint;
  const signature = a.signature_verified ? `signature verified with ${keyOrigin}` : 'signature not checked: pass --public-key';
  return `${label}: entry ${c.size} (id ${c.entry_id}), signed at ${at(c.timestamp)} by key ${c.key_id}: the chain extends it (${signature})`;
}

/** `keyOrigin` says which public key checked the signatures: given with --public-key, or the store's own. */
export function renderChainVerification(v: AnchoredChainVerification, keyOrigin: string): string {
  const lines = [`audit chain valid: ${entries(v.entries)}, head ${v.head}`];
  if (v.anchor) lines.push(anchorLine('anchored', v.anchor, keyOrigin));
  else if (v.entries > 0) lines.push('anchored: no checkpoint is signed yet (the server signs one within a second of the chain growing)');
  if (v.kept) lines.push(anchorLine('kept checkpoint', v.kept, keyOrigin));
  lines.push(
    v.unanchored === 0
      ? 'not yet anchored: none'
      : `not yet anchored: ${entries(v.unanchored)} after entry ${v.anchored} (these could still be cut off unseen)`,
  );
  return lines.join('\n');
}

/** A checkpoint as `engine audit-log checkpoint` prints it: keep the --json form. */
export function renderCheckpoint(c: SignedAuditCheckpoint): string {
  return [
    `checkpoint of the audit chain: entry ${c.size} (id ${c.entry_id})`,
    `entry_hash ${c.entry_hash}`,
    `signed at ${at(c.timestamp)} by key ${c.key_id}`,
    `signature ${c.signature}`,
    "keep the --json form out of the engine's reach; `engine audit-log verify --checkpoint FILE` proves the chain still holds it",
  ].join('\n');
}
