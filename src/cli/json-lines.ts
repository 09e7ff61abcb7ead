/**
 * The JSON Lines form of a command's answer (`--jsonl`, https://jsonlines.org): one compact JSON value per
 * line, so that `tradeseal pipeline run --jsonl >> pipeline.jsonl` under cron appends one line per run and
 * every line of the file parses on its own (`--json`'s indented document spans many lines).
 *
 * A listing is its rows, one line each: the rows are the records a reader of a JSON Lines file wants
 * (`jq -c`, `while read`, DuckDB's `read_json`), and an empty listing is an empty file rather than a line
 * that has to be opened to find nothing in it. The listing's own figures (`count` is the number of lines;
 * `has_more` and the next page's cursor) stay in `--json`. Any other answer, and an error
 * (`{"error": {…}}`), is one line.
 */

/** The values `--jsonl` prints, one per line: an array's elements, a listing's `rows` property's elements, else the document. */
export function jsonLines(document: unknown, rows?: string): unknown[] {
  if (Array.isArray(document)) return document;
  if (rows !== undefined && typeof document === 'object' && document !== null) {
    const listed = (document as Record<string, unknown>)[rows];
    if (Array.isArray(listed)) return listed;
  }
  return [document];
}

/** `values` as JSON Lines text: each value on one line, each line ended by a newline. */
export const toJsonLines = (values: readonly unknown[]): string => values.map((v) => `${JSON.stringify(v)}\n`).join('');
