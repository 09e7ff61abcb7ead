/**
 * The time order of a quant's own CSV file, read from its date column, for the tools that take the rows as a
 * time series (`tradeseal quant arima`). Files come both ways: `tradeseal signals export` and many vendors'
 * downloads are newest first, a fit wants oldest first, and a file read the wrong way round forecasts from
 * its oldest row without a word. So a file whose dates fall all the way is read backwards (and the caller
 * says so), and one whose dates go up and down, repeat, or cannot be read as dates is refused: every such
 * row a `data_invalid` problem naming the file and the line, as the pipeline's own inputs are
 * (../ingest/problems.ts). A file without a date column is taken in its own order.
 *
 * A date is `YYYY-MM-DD`, optionally with a time (`T` or a space, then `hh:mm`, seconds and a fraction, and a
 * zone `Z` or `±hh:mm`; no zone is UTC), or, in a column of them only, a Unix time (a plain number). Pure:
 * text in, order out.
 */
import { readCsvRecords } from '../ingest/csv-records.js';
import { dataInvalidError, type Problem } from '../ingest/problems.js';

/** The header names of a date column; the first one in the header is the one read. */
const DATE_COLUMN = /^(date|time|timestamp|datetime)$/i;
const ISO = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?)?$/;
const UNIX = /^\d+(\.\d+)?$/;

export interface DateOrder {
  /** The date column read, or null when the file has none (its rows are then taken as they come). */
  column: string | null;
  /** Whether the dates fall from the first row to the last: the rows are to be read backwards. */
  newestFirst: boolean;
}

const HINT = 'give one row per date, in date order (oldest first or newest first), each date as YYYY-MM-DD or an ISO 8601 date-time';

/** An ISO 8601 date or date-time as milliseconds (no zone: UTC), or null when it is not one or not a real day. */
function isoMillis(text: string): number | null {
  const m = ISO.exec(text);
  if (!m) return null;
  const [, day, time, zone] = m;
  const ms = Date.parse(`${day}T${time ?? '00:00'}${zone ?? 'Z'}`);
  // Date.parse rolls 2024-02-30 over to March 1st; a day that does not exist is a typo, not a date.
  if (Number.isNaN(ms) || new Date(Date.parse(`${day}T00:00Z`)).toISOString().slice(0, 10) !== day) return null;
  return ms;
}

/** The order of the file's rows by its date column; a file whose dates are not in one order throws `data_invalid`. */
export function dateOrder(file: string, text: string): DateOrder {
  const { records } = readCsvRecords(text);
  const [head, ...body] = records;
  const header = head?.fields.map((h) => h.trim()) ?? [];
  const at = header.findIndex((h) => DATE_COLUMN.test(h));
  if (at === -1) return { column: null, newestFirst: false };
  const column = header[at]!;
  const problems: Problem[] = [];
  const problem = (line: number, cell: string, rule: Problem['rule'], message: string): void =>
    void problems.push({ file, line, subject: column, text: cell, date: null, rule, message });

  // The kind of the column (dates or Unix times) is its first cell's; a cell of the other kind is not comparable.
  const firstCell = (body[0]?.fields[at] ?? '').trim();
  const unix = UNIX.test(firstCell);
  const keys: Array<{ line: number; cell: string; key: number }> = [];
  for (const record of body) {
    const cell = (record.fields[at] ?? '').trim();
    const key = unix ? (UNIX.test(cell) ? Number(cell) : null) : isoMillis(cell);
    if (key === null) {
      problem(
        record.line,
        cell,
        'date_format',
        cell === ''
          ? 'is empty: every row needs its date, by which the rows are put in time order'
          : unix
            ? 'is not a Unix time like the rest of the column'
            : 'is not a date (YYYY-MM-DD, or an ISO 8601 date-time)',
      );
    } else keys.push({ line: record.line, cell, key });
  }
  if (problems.length > 0) throw dataInvalidError(problems, `${file}: the rows cannot be put in date order`, HINT);

  const first = keys[0];
  const last = keys.at(-1);
  const newestFirst = first !== undefined && last !== undefined && last.key < first.key;
  for (let i = 1; i < keys.length; i++) {
    const prev = keys[i - 1]!;
    const cur = keys[i]!;
    if (cur.key === prev.key) problem(cur.line, cur.cell, 'date_repeated', `repeats the date of line ${prev.line}: one row per date`);
    else if (cur.key < prev.key !== newestFirst) {
      problem(
        cur.line,
        cur.cell,
        'date_order',
        `comes ${newestFirst ? 'after' : 'before'} ${prev.cell} on line ${prev.line}, but the file runs ${newestFirst ? 'newest' : 'oldest'} first (from ${first!.cell} to ${last!.cell}): the dates must go one way`,
      );
    }
  }
  if (problems.length > 0) throw dataInvalidError(problems, `${file}: the rows are not in date order`, HINT);
  return { column, newestFirst };
}
