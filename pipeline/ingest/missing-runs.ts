/**
 * Runs of missing values (catalogue.ts `MissingRun`): a holiday or a closure leaves a few empty values in a
 * row; a longer run is a series cut short or blanked out. Runs are counted down the file from the series'
 * first value (the empty rows before it are dates before the series began) and from the spec's `from`
 * date, when it has one (RRP before daily operations). A run that is too long is one problem, on its
 * first line.
 */
import type { SeriesSpec } from './catalogue.js';
import type { Report } from './problems.js';
import type { CheckedRow } from './row-rules.js';

export function checkMissingRuns(spec: SeriesSpec, rows: readonly CheckedRow[], report: Report): void {
  const rule = spec.missingRun;
  if (rule === null) return;
  let begun = false;
  let run: CheckedRow[] = [];
  const close = (): void => {
    const first = run[0];
    const last = run.at(-1);
    if (first && last && run.length > rule.max) {
      const allowed = rule.max === 0 ? `${spec.id} has no missing value once it has begun` : `${spec.id} allows at most ${rule.max} in a row`;
      const span = run.length === 1 ? `line ${first.line}` : `${first.date ?? '?'} to ${last.date ?? '?'}, lines ${first.line}-${last.line}`;
      report({
        line: first.line,
        subject: 'value',
        text: '',
        date: first.date,
        rule: 'missing_run',
        message: `${run.length} missing value${run.length === 1 ? '' : 's'} in a row (${span}); ${allowed} (${rule.why})`,
      });
    }
    run = [];
  };
  for (const row of rows) {
    if (!row.missing) {
      close();
      begun = true;
      continue;
    }
    const counted = begun && (rule.from === null || (row.date !== null && row.date >= rule.from));
    if (counted) run.push(row);
    else close();
  }
  close();
}
