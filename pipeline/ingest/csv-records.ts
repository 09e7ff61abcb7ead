/**
 * Reads the text of an input CSV file into records that keep their line numbers, with `csv-parse` (RFC 4180
 * quoting, `\n` or `\r\n` line ends), for the validator. Nothing is trimmed, cast or skipped: an empty line
 * is a record of one empty field, so the validator can name it. A line that is not CSV (a stray or
 * unclosed quote) is reported with its line number and the reading goes on, so one bad line does not hide
 * the problems of the lines after it.
 *
 * Line numbers come from csv-parse's `info`. Parsing is the validator's main cost (csv-parse took about
 * 230 ms for the bundled files, 100,000 lines; its `info` snapshot as much again), so a text without a quote
 * character, and with no bare carriage return, is split directly: RFC 4180 gives such a text exactly one
 * record per line and one field per comma, and a record's line is its position. The tests hold the split to
 * csv-parse's records and lines, on the bundled files and on the edge cases (empty lines, CRLF, no final
 * line end).
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

/** The records of a quote-free text with no bare `\r`: one per line, fields split at commas. */
function splitPlain(text: string): CsvRecords {
  const body = text.endsWith('\n') ? text.slice(0, text.endsWith('\r\n') ? -2 : -1) : text;
  if (body === '') return { records: [], syntaxErrors: [] };
  return { records: body.split(/\r?\n/).map((line, i) => ({ line: i + 1, fields: line.split(',') })), syntaxErrors: [] };
}

export function readCsvRecords(text: string, options: { withInfo?: boolean } = {}): CsvRecords {
  if (options.withInfo !== true && !text.includes('"') && !/\r(?!\n)/.test(text)) return splitPlain(text);
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
