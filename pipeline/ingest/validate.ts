/**
 * The input validator: checks the text of one catalogue file against every rule of its series and returns
 * EVERY problem found, each naming the file, the line, the text and the rule (problems.ts). Pure: text in,
 * report out; reading the files is `check-dir.ts`'s job, and the pipeline refuses to compute anything from a
 * directory with a problem.
 *
 * The rules, in the order they are applied:
 * 1. the file is CSV (csv-records.ts) and its header is its layout's (catalogue.ts `LAYOUTS`); with another
 *    header nothing else is checked, since the columns are not known;
 * 2. each row on its own (row-rules.ts): field count, calendar date, plain decimals or the missing-value
 *    marker, the series' bounds, and for yfinance files low ≤ open, close ≤ high and a whole volume;
 * 3. dates strictly increasing, each once (date-order.ts);
 * 4. the publication rhythm: no missing day, no day off the rhythm (rhythm.ts);
 * 5. no longer run of missing values than the series allows (missing-runs.ts).
 */
import { LAYOUTS, type SeriesSpec } from './catalogue.js';
import { readCsvRecords } from './csv-records.js';
import { checkDateOrder } from './date-order.js';
import { checkMissingRuns } from './missing-runs.js';
import type { Problem, Report } from './problems.js';
import { checkRhythm } from './rhythm.js';
import { checkRow, type CheckedRow } from './row-rules.js';

export interface FileReport {
  id: string;
  file: string;
  /** Data rows (lines after the header). */
  rows: number;
  /** Earliest and latest valid date; null without one. */
  firstDate: string | null;
  lastDate: string | null;
  /** Every problem, by line. */
  problems: Problem[];
}

export function validateSeriesText(spec: SeriesSpec, text: string): FileReport {
  const problems: Problem[] = [];
  const report: Report = (p) => problems.push({ file: spec.file, ...p });
  const finish = (rows: number, checked: readonly CheckedRow[]): FileReport => {
    let firstDate: string | null = null;
    let lastDate: string | null = null;
    for (const { date } of checked) {
      if (date === null) continue;
      if (firstDate === null || date < firstDate) firstDate = date;
      if (lastDate === null || date > lastDate) lastDate = date;
    }
    // Stable: problems of one line keep the order of the rules above.
    problems.sort((a, b) => a.line - b.line);
    return { id: spec.id, file: spec.file, rows, firstDate, lastDate, problems };
  };

  const { records, syntaxErrors } = readCsvRecords(text);
  for (const e of syntaxErrors) report({ line: e.line, subject: 'row', text: '', date: null, rule: 'csv_syntax', message: `not CSV: ${e.message}` });

  const expected = LAYOUTS[spec.layout].header(spec.id).join(',');
  const header = records[0];
  const dataRecords = header?.line === 1 ? records.slice(1) : records;
  if (header?.line !== 1 || header.fields.join(',') !== expected) {
    const found = header?.line === 1 ? header.fields.join(',') : '';
    report({
      line: 1,
      subject: 'header',
      text: found,
      date: null,
      rule: 'header',
      message: `the ${spec.layout} layout's header is ${JSON.stringify(expected)}`,
    });
    return finish(dataRecords.length, []);
  }

  const rows = dataRecords.map((r) => checkRow(spec, r.line, r.fields, report));
  checkDateOrder(rows, report);
  checkRhythm(spec, rows, report);
  checkMissingRuns(spec, rows, report);
  return finish(rows.length, rows);
}
