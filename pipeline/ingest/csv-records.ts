/**
 * Reads the text of an input CSV file into records that keep their line numbers, with `csv-parse` (RFC 4180
 * quoting, `\n` or `\r\n` line ends), for the validator. Nothing is trimmed, cast or skipped: an empty line
 * is a record of one empty field, so the validator can name it. A line that is not CSV (a stray or
 * unclosed quote) is reported with its line number and the reading goes on, so one bad line does not hide
 * the problems of the lines after it.
 *
 * Line numbers come from csv-parse's `info`. That snapshot costs more than the parsing itself (about 1 µs
 * a record), so a text without a quote character is parsed without it: there no record can span two
 * lines, and csv-parse's line count is the record's position (the tests hold both paths to the same lines).
 */
import { parse } from 'csv-parse/sync';

export interface CsvRecord {
  /** 1-based line on which the record ends (the header is line 1). */
  line: number;
  fields: string[];
}

export interface CsvSyntaxError {
  line: number;
  message: string;
}

export interface CsvRecords {
  records: CsvRecord[];
  syntaxErrors: CsvSyntaxError[];
}

interface ParsedWithInfo {
  record: string[];
  info: { lines: number };
}

export function readCsvRecords(text: string, options: { withInfo?: boolean } = {}): CsvRecords {
  if (!text.includes('"') && options.withInfo !== true) {
    const records = parse(text, { relax_column_count: true, skip_empty_lines: false });
    return { records: records.map((fields, i) => ({ line: i + 1, fields })), syntaxErrors: [] };
  }
  const syntaxErrors: CsvSyntaxError[] = [];
  const parsed = parse(text, {
    info: true,
    relax_column_count: true,
    skip_empty_lines: false,
    skip_records_with_error: true,
    on_skip: (err) => {
      // csv-parse counts the line on which it gave up, 1-based like the validator.
      if (err) syntaxErrors.push({ line: typeof err.lines === 'number' ? err.lines : 0, message: err.message });
      return undefined;
    },
  }) as unknown as ParsedWithInfo[];
  return { records: parsed.map((p) => ({ line: p.info.lines, fields: p.record })), syntaxErrors };
}
