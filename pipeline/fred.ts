/**
 * FRED API client: the production source of the macro series (pipeline spec PIPELINE.md, "Inputs").
 *
 *   GET {FRED_BASE_URL}/fred/series/observations?series_id=…&api_key=…&file_type=json&observation_start=…
 *
 * Answers go through the same parser as every FRED-format input (ingest/fred-format.ts). Each request has
 * a timeout; 429, 5xx, timeouts and network failures are retried with exponential backoff (honouring
 * `Retry-After`); a rejected key (400 naming `api_key`, or 401/403) fails at once with a `config_invalid`
 * error that says so. The key never appears in an error message.
 *
 * `updateDataDir` writes each FRED series of the catalogue back into its CSV file, in the file's layout,
 * through a temporary file and a rename, so a reader never sees half a file. It merges: rows dated before
 * the first fetched observation are kept. That matters for BAMLH0A0HYM2, whose full history FRED no longer
 * serves (ICE BofA series show a rolling 3-year window), and it lets a refresh ask only for recent data.
 * Before a file is replaced, the merged series goes through the input validator (ingest/validate.ts), the
 * same rules the pipeline holds its inputs to: a series that breaks one is not written, so a bad FRED
 * answer never lands on disk. The other series are still refreshed, and the refresh then fails with one
 * `data_invalid` error listing every problem of every refused series.
 * Reference: https://fred.stlouisfed.org/docs/api/fred/series_observations.html
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../src/config.js';
import { writeFileAtomic } from '../src/atomic-file.js';
import { EXIT, TradesealError } from '../src/errors.js';
import { CATALOGUE, isIsoDate, seriesSpec, type SeriesSpec } from './ingest/catalogue.js';
import { formatFredCsv, FredFormatError, parseFredCsv, readFredObservations, toObsRows, type FredObservation, type ObsRow } from './ingest/fred-format.js';
import { dataInvalidError, type Problem } from './ingest/problems.js';
import { validateSeriesText } from './ingest/validate.js';

export type FredConfig = Pick<Config, 'fredApiKey' | 'fredBaseUrl'>;

export interface FetchOptions {
  /** First date to ask for (`observation_start`); default: the whole history. */
  observationStart?: string;
  /** Per request, ms (default 30 000). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 4). */
  retries?: number;
  /** Delay before the first retry, doubled each time up to `maxBackoffMs` (defaults 1 000 and 30 000). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Observations per request; FRED's maximum is 100 000. */
  pageSize?: number;
}

export interface FredSeries {
  id: string;
  observations: FredObservation[];
  rows: ObsRow[];
}

const FRED_MAX_PAGE = 100_000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const unavailable = (detail: string, cause?: unknown): TradesealError =>
  new TradesealError('service_unavailable', detail, { hint: 'FRED did not answer usefully; the run keeps the files it has', ...(cause ? { cause } : {}) });

const rejected = (detail: string): TradesealError => new TradesealError('fred_request_rejected', detail);

/** The request URL with the key replaced, for messages and logs. */
const redact = (url: URL): string => {
  const copy = new URL(url);
  if (copy.searchParams.has('api_key')) copy.searchParams.set('api_key', '***');
  return copy.toString();
};

/** FRED's error text (`{"error_code": 400, "error_message": "Bad Request.  ..."}`), or the start of the body. */
async function errorMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as { error_message?: unknown };
    if (typeof parsed.error_message === 'string') return parsed.error_message;
  } catch {
    // Not JSON (a proxy's HTML page, say): show its beginning.
  }
  return text.slice(0, 200);
}

function retryDelay(attempt: number, response: Response | null, options: FetchOptions): number {
  const base = Math.min((options.backoffMs ?? 1_000) * 2 ** attempt, options.maxBackoffMs ?? 30_000);
  const retryAfter = Number(response?.headers.get('retry-after'));
  return Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(Math.max(base, retryAfter * 1000), options.maxBackoffMs ?? 30_000) : base;
}

/** One GET with timeout and retries; returns the parsed JSON body of a 200. */
async function getJson(url: URL, id: string, options: FetchOptions): Promise<unknown> {
  const retries = options.retries ?? 4;
  let last = '';
  for (let attempt = 0; attempt <= retries; attempt++) {
    let response: Response | null = null;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? 30_000), headers: { accept: 'application/json' } });
      if (response.ok) return await response.json();
    } catch (e) {
      // Timeouts, refused connections and cut-off bodies are worth another try.
      last = `${(e as Error).name}: ${(e as Error).message}`;
      response = null;
    }
    if (response) {
      const message = await errorMessage(response);
      last = `HTTP ${response.status} ${message}`;
      if (response.status === 401 || response.status === 403 || (response.status === 400 && /api_key/i.test(message))) {
        throw new TradesealError('config_invalid', `FRED rejected FRED_API_KEY (HTTP ${response.status}: ${message})`, {
          hint: 'set FRED_API_KEY to a valid key (https://fred.stlouisfed.org/docs/api/api_key.html)',
        });
      }
      if (response.status !== 429 && response.status < 500) throw rejected(`FRED rejected the request for ${id} (${last}): ${redact(url)}`);
    }
    if (attempt < retries) await sleep(retryDelay(attempt, response, options));
  }
  throw unavailable(`FRED request for ${id} failed after ${retries + 1} attempts (last: ${last}): ${redact(url)}`);
}

/** Fetches one series (all pages), checked by the FRED-format parser. */
export async function fetchSeries(config: FredConfig, id: string, options: FetchOptions = {}): Promise<FredSeries> {
  const spec = seriesSpec(id);
  if (spec.source !== 'fred') throw new RangeError(`${id} is not a FRED series`);
  if (!config.fredApiKey) throw new TradesealError('precondition_failed', 'FRED_API_KEY is not set', { hint: 'set FRED_API_KEY to refresh the series from FRED' });
  if (options.observationStart !== undefined && !isIsoDate(options.observationStart)) throw new RangeError(`observationStart must be an ISO date, got ${options.observationStart}`);
  const pageSize = Math.min(options.pageSize ?? FRED_MAX_PAGE, FRED_MAX_PAGE);
  const observations: FredObservation[] = [];
  for (;;) {
    const url = new URL('/fred/series/observations', `${config.fredBaseUrl}/`);
    const params: Record<string, string> = { series_id: id, api_key: config.fredApiKey, file_type: 'json', sort_order: 'asc', limit: String(pageSize), offset: String(observations.length) };
    if (options.observationStart) params.observation_start = options.observationStart;
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const body = await getJson(url, id, options);
    let page: FredObservation[];
    try {
      page = readFredObservations(body, id);
    } catch (e) {
      if (e instanceof FredFormatError) throw rejected(`FRED answered ${id} with data the parser refuses: ${e.message}`);
      throw e;
    }
    observations.push(...page);
    const count = Number((body as { count?: unknown }).count);
    if (page.length === 0 || !Number.isFinite(count) || observations.length >= count) break;
  }
  // Pages are each in order; this checks the seams between them too.
  const checked = readFredObservations({ observations }, id);
  return { id, observations: checked, rows: toObsRows(spec, checked) };
}


/** Existing rows dated before the first fetched one, then the fetched rows. */
export function mergeObservations(existing: readonly FredObservation[], fetched: readonly FredObservation[]): FredObservation[] {
  const first = fetched[0];
  if (!first) return [...existing];
  return [...existing.filter((o) => o.date < first.date), ...fetched];
}

export interface UpdateResult {
  id: string;
  file: string;
  fetched: number;
  /** Rows of the previous file kept before the first fetched date. */
  kept: number;
  rows: number;
  lastDate: string | null;
}

async function readExisting(spec: SeriesSpec, file: string): Promise<FredObservation[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  return parseFredCsv(spec, text);
}

/**
 * Refreshes every FRED series of the catalogue (or `series`) in `dir`, one file at a time, each validated
 * before it replaces its file. Throws `data_invalid` after the others are written if any series was refused.
 */
export async function updateDataDir(config: FredConfig, dir: string, options: FetchOptions & { series?: readonly string[] } = {}): Promise<UpdateResult[]> {
  const specs = options.series ? options.series.map(seriesSpec) : CATALOGUE.filter((s) => s.source === 'fred');
  const results: UpdateResult[] = [];
  const refused: Problem[] = [];
  for (const spec of specs) {
    const { observations } = await fetchSeries(config, spec.id, options);
    const file = path.join(dir, spec.file);
    const existing = await readExisting(spec, file);
    const merged = mergeObservations(existing, observations);
    if (observations.length > 0) {
      const text = formatFredCsv(spec, merged);
      const { problems } = validateSeriesText(spec, text);
      if (problems.length > 0) {
        refused.push(...problems);
        continue;
      }
      await writeFileAtomic(file, text);
    }
    results.push({ id: spec.id, file, fetched: observations.length, kept: merged.length - observations.length, rows: merged.length, lastDate: merged.at(-1)?.date ?? null });
  }
  if (refused.length > 0) {
    const files = [...new Set(refused.map((p) => p.file))];
    throw dataInvalidError(refused, `FRED's data, merged with the rows kept, break the rules of their series, so ${files.join(', ')} ${files.length === 1 ? 'was' : 'were'} left as before `
      + `(${results.length} other series refreshed; line numbers are those of the file as it would have been written)`);
  }
  return results;
}
