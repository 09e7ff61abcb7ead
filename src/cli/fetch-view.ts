/**
 * What `tradeseal pipeline fetch` prints: one row per series (its source, the rows it added, the rows the source
 * served differently, its last date, or why it failed), then every revision, field by field, so an operator sees
 * a vendor's correction before a run refuses it for a published day.
 */
import type { FetchOutcome } from '../../pipeline/fetch/fetch-all.js';
import { renderTable } from './table.js';

/** Revisions listed in full before the rest are counted. */
const REVISIONS_SHOWN = 20;

export function renderFetch(outcome: FetchOutcome): string {
  const rows = [
    ...outcome.fetched.map((f) => [
      f.series,
      f.source,
      f.changed_at === f.fetched_at ? f.added : 0,
      f.changed_at === f.fetched_at ? f.revisions.length : 0,
      f.rows,
      f.last_date,
      'ok',
    ]),
    ...outcome.failed.map((f) => [f.series, null, null, null, null, null, `${f.code}: ${f.message}`]),
  ];
  const lines = [renderTable(['series', 'source', 'added', 'revised', 'rows', 'last_date', { name: 'status', priority: 'normal' }], rows)];
  // What this fetch changed: an unchanged file's entry holds the revisions of its last change, shown by FETCHED.json.
  const revisions = outcome.fetched.filter((f) => f.changed_at === f.fetched_at).flatMap((f) => f.revisions.map((r) => ({ series: f.series, ...r })));
  if (revisions.length > 0) {
    lines.push('', `rows the sources served differently from the files (${revisions.length}; FETCHED.json keeps them until the file changes again):`);
    for (const r of revisions.slice(0, REVISIONS_SHOWN))
      lines.push(`  ${r.series} ${r.date} ${r.field}: ${r.was ?? '(no row)'} then, ${r.now ?? '(no row)'} now`);
    if (revisions.length > REVISIONS_SHOWN) lines.push(`  … and ${revisions.length - REVISIONS_SHOWN} more`);
    lines.push(
      'a revised value, open, close, dividend or split of a published day stops the next run (history_not_extendable); docs/operations.md, "Running it every day", says what to do',
    );
  }
  return lines.join('\n');
}
