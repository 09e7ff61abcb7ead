/**
 * The order of an input file's dates: strictly increasing down the file, each date once. A row is
 * compared with the dated row just above it, so one row out of place is one problem, not one per row
 * after it; a date seen before is reported as repeated (naming the first line) rather than out of order.
 */
import type { CheckedRow } from './row-rules.js';
import type { Report } from './problems.js';

export function checkDateOrder(rows: readonly CheckedRow[], report: Report): void {
  // While each date is after the one above, none can repeat an earlier one: the dates seen are indexed only
  // from the first row that is not (then every row from the top), so an ordered file costs one comparison a row.
  let firstLine: Map<string, number> | null = null;
  let previous: CheckedRow | null = null;
  for (const row of rows) {
    const { date } = row;
    if (date === null) continue;
    if (firstLine === null) {
      if (previous?.date == null || date > previous.date) {
        previous = row;
        continue;
      }
      firstLine = new Map();
      for (const r of rows) {
        if (r === row) break;
        if (r.date !== null && !firstLine.has(r.date)) firstLine.set(r.date, r.line);
      }
    }
    const seen = firstLine.get(date);
    if (seen !== undefined) {
      report({ line: row.line, subject: 'date', text: date, date, rule: 'date_repeated', message: `repeats the date of line ${seen}; each date appears once` });
    } else {
      firstLine.set(date, row.line);
      if (previous?.date != null && date < previous.date) {
        report({
          line: row.line,
          subject: 'date',
          text: date,
          date,
          rule: 'date_order',
          message: `comes after ${previous.date} (line ${previous.line}); dates must be strictly increasing`,
        });
      }
    }
    previous = row;
  }
}
