/**
 * The data vintage of a feature frame: what went in, so a published run can say which data it used and a
 * later run can tell whether anything changed.
 *
 * `inputSha256` is the SHA-256 of the `sha256sum`-style listing of the input files ("<hex>  <file>\n" per
 * file, sorted by file name), so `sha256sum *.csv | sort -k2 | sha256sum` over the same files reproduces it.
 * It identifies the files, whatever the as-of cut; `asOf` records the cut and the per-series dates are
 * those seen through it. Each series also says where its file came from (`fetched`, from FETCHED.json).
 */
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CalendarBounds } from '../calendar.js';
import { queryRows } from '../ingest/duckdb.js';
import type { InputFile } from '../ingest/load.js';
import type { FetchRecord } from '../fetch/fetch-record.js';

export interface SeriesVintage {
  file: string;
  sha256: string;
  /**
   * Where the file came from, as the data directory's FETCHED.json records it (`pipeline fetch`): the source
   * and its address, when it was fetched, and whether the file is still what was fetched (`as_fetched`: its
   * SHA-256 the one recorded; false when it was changed since). Null for a file never fetched (the bundled
   * files, whose source is data/macro/PROVENANCE.md).
   */
  fetched: { source: string; source_url: string; fetched_at: string; as_fetched: boolean } | null;
  /** Rows usable as of the cut (missing-value rows included). */
  rows: number;
  firstDate: string | null;
  /** Date of the last row usable as of the cut (a FRED holiday row with no value counts). */
  lastDate: string | null;
  /** Date of the last non-missing value usable as of the cut. */
  lastValueDate: string | null;
}

export interface Vintage {
  asOf: string | null;
  /** First and last calendar day of the frame, and its number of days. */
  start: string;
  end: string;
  days: number;
  series: Record<string, SeriesVintage>;
  inputSha256: string;
  /** Data conditions a run should show its operator (e.g. a moved splice link); empty when none. */
  warnings: string[];
}

export function combinedSha256(inputs: readonly InputFile[]): string {
  const listing = [...inputs]
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))
    .map((i) => `${i.sha256}  ${i.file}\n`)
    .join('');
  return createHash('sha256').update(listing).digest('hex');
}

/** Reads the per-series dates from the view `pit` and assembles the vintage. */
export async function describeVintage(
  conn: DuckDBConnection,
  inputs: readonly InputFile[],
  bounds: CalendarBounds,
  asOf: string | null,
  warnings: readonly string[] = [],
  record: FetchRecord = { version: 1, files: {} },
): Promise<Vintage> {
  const rows = await queryRows(
    conn,
    `
    SELECT series, count(*) AS n,
           strftime(min(date), '%Y-%m-%d') AS first_date,
           strftime(max(date), '%Y-%m-%d') AS last_date,
           strftime(max(date) FILTER (WHERE value IS NOT NULL), '%Y-%m-%d') AS last_value_date
    FROM pit GROUP BY series`,
  );
  const byId = new Map(rows.map((r) => [String(r.series), r]));
  const series: Record<string, SeriesVintage> = {};
  for (const input of inputs) {
    const r = byId.get(input.id);
    const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
    const f = record.files[input.file];
    series[input.id] = {
      file: input.file,
      sha256: input.sha256,
      fetched: f ? { source: f.source, source_url: f.source_url, fetched_at: f.fetched_at, as_fetched: f.sha256 === input.sha256 } : null,
      rows: r ? Number(r.n) : 0,
      firstDate: text(r?.first_date),
      lastDate: text(r?.last_date),
      lastValueDate: text(r?.last_value_date),
    };
  }
  return { asOf, start: bounds.start, end: bounds.end, days: bounds.days, series, inputSha256: combinedSha256(inputs), warnings: [...warnings] };
}
