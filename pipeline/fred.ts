/**
 * FRED API client: the production source of the macro series (docs/decisions/0026-pipeline-inputs.md).
 *
 *   GET {FRED_BASE_URL}/fred/series/observations?series_id=…&api_key=…&file_type=json&observation_start=…
 *
 * Answers go through the same parser as every FRED-format input (ingest/fred-format.ts). Requests go through
 * the shared client of every data source (sources/http.ts): a timeout per attempt; 429, 5xx, timeouts,
 * network failures and cut-off bodies retried with exponential backoff (honouring `Retry-After`), then
 * `source_unavailable`. A rejected key (400 naming `api_key`, or 401/403) fails at once with a
 * `config_invalid` error that says so; another 4xx, or observations the parser refuses, with
 * `fred_request_rejected`; a 2xx that is not JSON with `source_answer_invalid`. The key never appears in a
 * message: the request URL is shown with `api_key=***`.
 *
 * `mergeObservations` keeps the rows dated before the first fetched observation: FRED serves BAMLH0A0HYM2
 * (an ICE BofA series) for a rolling three years only. Writing a refreshed file, checked first, is
 * fetch/fred-series.ts's job.
 * Reference: https://fred.stlouisfed.org/docs/api/fred/series_observations.html
 */
import type { Config } from '../src/core/config.js';
import { TradesealError } from '../src/core/errors.js';
import { isIsoDate, seriesSpec } from './ingest/catalogue.js';
import { FredFormatError, readFredObservations, toObsRows, type FredObservation, type ObsRow } from './ingest/fred-format.js';
import { answerInvalid, describeBody, httpGet, requestMessage, shownUrl, type HttpAnswer, type HttpOptions, type HttpRequest } from './sources/http.js';

export type FredConfig = Pick<Config, 'fredApiKey' | 'fredBaseUrl'>;

export interface FetchOptions extends HttpOptions {
  /** First date to ask for (`observation_start`); default: the whole history. */
  observationStart?: string;
  /** Observations per request; FRED's maximum is 100 000. */
  pageSize?: number;
}

export interface FredSeries {
  id: string;
  observations: FredObservation[];
  rows: ObsRow[];
}

const FRED_MAX_PAGE = 100_000;

const rejected = (request: HttpRequest, detail: string): TradesealError => new TradesealError('fred_request_rejected', requestMessage(request, detail));

/** FRED's error text (`{"error_code": 400, "error_message": "Bad Request.  ..."}`), or what the body is. */
function errorMessage(answer: HttpAnswer): string {
  try {
    const parsed = JSON.parse(answer.text) as { error_message?: unknown };
    if (typeof parsed.error_message === 'string') return parsed.error_message;
  } catch {
    // Not JSON (a proxy's HTML page, say): describe it.
  }
  return describeBody(answer);
}

/** A key FRED does not accept: 400 naming `api_key`, or 401/403. Fails at once; retrying cannot help. */
function rejectedKey(request: HttpRequest, answer: HttpAnswer): TradesealError | undefined {
  const message = errorMessage(answer);
  if (answer.status !== 401 && answer.status !== 403 && !(answer.status === 400 && /api_key/i.test(message))) return undefined;
  return new TradesealError('config_invalid', requestMessage(request, `FRED rejected FRED_API_KEY (HTTP ${answer.status}: ${message})`), {
    hint: 'set FRED_API_KEY to a valid key (https://fred.stlouisfed.org/docs/api/api_key.html)',
  });
}

/** One GET through the shared client (./sources/http.ts); returns the parsed JSON body of a 2xx. */
async function getJson(url: URL, id: string, options: FetchOptions): Promise<unknown> {
  const request: HttpRequest = {
    source: 'FRED',
    subject: id,
    url,
    secretParams: ['api_key'],
    headers: { accept: 'application/json' },
    errorText: errorMessage,
    refuse: (answer) => rejectedKey(request, answer),
  };
  const answer = await httpGet(request, options);
  if (answer.status < 200 || answer.status >= 300) throw rejected(request, `FRED rejected the request (HTTP ${answer.status} ${errorMessage(answer)})`);
  try {
    return JSON.parse(answer.text);
  } catch {
    throw answerInvalid(request, `HTTP ${answer.status} with ${describeBody(answer)} where JSON was due`);
  }
}

/** Fetches one series (all pages), checked by the FRED-format parser. */
export async function fetchSeries(config: FredConfig, id: string, options: FetchOptions = {}): Promise<FredSeries> {
  const spec = seriesSpec(id);
  if (spec.source !== 'fred') throw new RangeError(`${id} is not a FRED series`);
  if (!config.fredApiKey)
    throw new TradesealError('precondition_failed', 'FRED_API_KEY is not set', { hint: 'set FRED_API_KEY to refresh the series from FRED' });
  if (options.observationStart !== undefined && !isIsoDate(options.observationStart))
    throw new RangeError(`observationStart must be an ISO date, got ${options.observationStart}`);
  const pageSize = Math.min(options.pageSize ?? FRED_MAX_PAGE, FRED_MAX_PAGE);
  const observations: FredObservation[] = [];
  for (;;) {
    const url = new URL('/fred/series/observations', `${config.fredBaseUrl}/`);
    const params: Record<string, string> = {
      series_id: id,
      api_key: config.fredApiKey,
      file_type: 'json',
      sort_order: 'asc',
      limit: String(pageSize),
      offset: String(observations.length),
    };
    if (options.observationStart) params.observation_start = options.observationStart;
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    const body = await getJson(url, id, options);
    let page: FredObservation[];
    try {
      page = readFredObservations(body, id);
    } catch (e) {
      if (e instanceof FredFormatError)
        throw new TradesealError(
          'fred_request_rejected',
          `FRED answered ${id} with data the parser refuses: ${e.message}. Request: GET ${shownUrl(url, ['api_key'])}`,
        );
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
