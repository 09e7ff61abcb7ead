/**
 * A quant's own CSV file, read as numeric columns: a header row, then one row per observation. A cell is a
 * plain decimal number (an optional sign, digits, a fraction, an exponent), or empty for a missing value
 * (NaN, as pandas reads it). Anything else is a problem naming the file, the line, the column and the text
 * (`data_invalid`, exit 2), every one listed, as for the pipeline's own inputs (../ingest/problems.ts), as
 * is a value beyond the caller's bound on magnitude (a value near 1e300 whose square overflows a double).
 * Pure: text in, columns out; reading the file is the command's job.
 */
import { readCsvRecords } from '../ingest/csv-records.js';
import { dataInvalidError, type Problem } from '../ingest/problems.js';

export interface NumericColumns {
  /** The header, in file order. */
  header: string[];
  /** The requested columns, NaN where a cell is empty. */
  columns: Record<string, Float64Array>;
  /** Data rows (lines after the header). */
  rows: number;
}

const HINT = 'a header row, then one row per observation: plain decimal numbers, an empty cell for a missing value';
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** The first column of the header that is not `names`' (e.g. a date column), for a default. */
export function firstOtherColumn(header: readonly string[], skip: RegExp = /^(date|time|timestamp|datetime|index|)$/i): string | null {
  return header.find((h) => !skip.test(h.trim())) ?? null;
}

/** A bound on the magnitude of every value read, and why, for a computation whose sums of squares would overflow beyond it. */
export interface MagnitudeBound {
  max: number;
  why: string;
}

export function readNumericColumns(file: string, text: string, names: readonly string[], bound?: MagnitudeBound): NumericColumns {
  const problems: Problem[] = [];
  const { records, syntaxErrors } = readCsvRecords(text);
  for (const e of syntaxErrors)
    problems.push({ file, line: e.line, subject: 'row', text: '', date: null, rule: 'csv_syntax', message: `not CSV: ${e.message}` });
  const [head, ...body] = records;
  const header = head?.fields.map((h) => h.trim()) ?? [];
  const index = new Map(header.map((h, i) => [h, i]));
  const missing = names.filter((n) => !index.has(n));
  if (!head || missing.length > 0) {
    // No header read because the text is not CSV (a quote never closed swallows the rest): the syntax error
    // is the problem, the file is not empty.
    if (!head && problems.length > 0) throw dataInvalidError(problems, `${file} cannot be read as columns of numbers`, HINT);
    problems.push({
      file,
      line: 1,
      subject: 'header',
      text: header.join(','),
      date: null,
      rule: 'header',
      message: head ? `has no column ${missing.map((m) => JSON.stringify(m)).join(', ')} (columns: ${header.join(', ')})` : 'the file is empty',
    });
    throw dataInvalidError(problems, `${file} cannot be read as columns of numbers`, HINT);
  }
  const columns: Record<string, Float64Array> = Object.fromEntries(names.map((n) => [n, new Float64Array(body.length)]));
  body.forEach((record, r) => {
    for (const name of names) {
      const cell = (record.fields[index.get(name)!] ?? '').trim();
      if (cell === '') columns[name]![r] = Number.NaN;
      else if (NUMBER.test(cell)) {
        const v = Number(cell);
        columns[name]![r] = v;
        if (bound && !(Math.abs(v) <= bound.max)) {
          problems.push({
            file,
            line: record.line,
            subject: name,
            text: cell,
            date: null,
            rule: 'out_of_bounds',
            message: `is beyond ±${bound.max}: ${bound.why}`,
          });
        }
      } else {
        columns[name]![r] = Number.NaN;
        problems.push({
          file,
          line: record.line,
          subject: name,
          text: cell,
          date: null,
          rule: 'not_a_number',
          message: 'is neither a number nor empty (a missing value)',
        });
      }
    }
  });
  if (problems.length > 0) throw dataInvalidError(problems, `${file} cannot be read as columns of numbers`, HINT);
  return { header, columns, rows: body.length };
}
