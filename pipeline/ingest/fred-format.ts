/**
 * The FRED format in TypeScript: the API's JSON (`/fred/series/observations?file_type=json`, shape
 * `{observations: [{date, value}, ...]}` with `"."` for a missing value) and the project's CSV layouts of
 * the same series (`date,value` or `date,<ID>`, missing = empty field).
 *
 * `toObsRows` gives exactly the rows the DuckDB loader puts in `obs` for the same data, so fetched and
 * bundled series are one thing to the rest of the pipeline. Values are kept as FRED's text until they are
 * parsed, so writing a fetched series back to CSV never re-rounds a number.
 * Reference: https://fred.stlouisfed.org/docs/api/fred/series_observations.html
 */
import { usableFrom } from '../release/usable-from.js';
import { isIsoDate, isPlainDecimal, LAYOUTS, type SeriesSpec } from './catalogue.js';

/** One observation as FRED sends it: `value` is decimal text, or `"."` when missing. */
export interface FredObservation {
  date: string;
  value: string;
}

/** A row of the `obs` table. */
export interface ObsRow {
  series: string;
  date: string;
  value: number | null;
  usable_from: string;
}

export const FRED_MISSING = '.';

export class FredFormatError extends Error {
  override name = 'FredFormatError';
}

/** Checks the observations of a FRED JSON answer: shape, ISO dates strictly increasing, decimal or ".". */
export function readFredObservations(body: unknown, seriesId: string): FredObservation[] {
  const list = (body as { observations?: unknown } | null)?.observations;
  if (!Array.isArray(list)) throw new FredFormatError(`${seriesId}: the FRED answer has no observations array`);
  const out: FredObservation[] = [];
  let previous = '';
  list.forEach((item: unknown, i) => {
    const { date, value } = (item ?? {}) as { date?: unknown; value?: unknown };
    if (typeof date !== 'string' || !isIsoDate(date))
      throw new FredFormatError(`${seriesId}: observations[${i}].date ${JSON.stringify(date)} is not an ISO date`);
    if (typeof value !== 'string' || (value !== FRED_MISSING && !isPlainDecimal(value))) {
      throw new FredFormatError(`${seriesId}: observations[${i}].value ${JSON.stringify(value)} (${date}) is neither a number nor "."`);
    }
    if (date <= previous) throw new FredFormatError(`${seriesId}: observations[${i}].date ${date} does not follow ${previous}`);
    previous = date;
    out.push({ date, value });
  });
  return out;
}

/** The `obs` rows of a series, as the DuckDB loader would produce them from its CSV file. */
export function toObsRows(spec: SeriesSpec, observations: readonly FredObservation[]): ObsRow[] {
  return observations.map(({ date, value }) => ({
    series: spec.id,
    date,
    value: value === FRED_MISSING ? null : Number(value),
    usable_from: usableFrom(spec.release, date),
  }));
}

function assertFredLayout(spec: SeriesSpec): void {
  if (spec.layout !== 'fred' && spec.layout !== 'fred_named') throw new FredFormatError(`${spec.id} has layout ${spec.layout}, not a FRED layout`);
}

/** The CSV text of a series in its catalogue layout: header, then `date,value` lines, missing as the file's marker. */
export function formatFredCsv(spec: SeriesSpec, observations: readonly FredObservation[]): string {
  assertFredLayout(spec);
  const marker = spec.missingMarker ?? '';
  const lines = [LAYOUTS[spec.layout].header(spec.id).join(',')];
  for (const o of observations) lines.push(`${o.date},${o.value === FRED_MISSING ? marker : o.value}`);
  return `${lines.join('\n')}\n`;
}

/** Reads a FRED-layout CSV back into observations (the inverse of `formatFredCsv`). */
export function parseFredCsv(spec: SeriesSpec, text: string): FredObservation[] {
  assertFredLayout(spec);
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const expected = LAYOUTS[spec.layout].header(spec.id).join(',');
  if (lines[0] !== expected) throw new FredFormatError(`${spec.file}: header ${JSON.stringify(lines[0])}, expected ${JSON.stringify(expected)}`);
  const observations = lines.slice(1).map((line, i) => {
    const comma = line.indexOf(',');
    if (comma < 0 || line.indexOf(',', comma + 1) >= 0) throw new FredFormatError(`${spec.file} line ${i + 2}: expected two fields`);
    const field = line.slice(comma + 1);
    return { date: line.slice(0, comma), value: field === spec.missingMarker ? FRED_MISSING : field };
  });
  return readFredObservations({ observations }, spec.id);
}
