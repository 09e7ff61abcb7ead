/**
 * A local FRED API (node:http on 127.0.0.1) serving `/fred/series/observations` the way FRED answers
 * (https://fred.stlouisfed.org/docs/api/fred/series_observations.html): JSON pages (`limit`, `offset`,
 * `count`), `observation_start`, "." for missing values, and FRED's 400 body for a key it does not know
 * (https://fred.stlouisfed.org/docs/api/fred/errors.html, with its two spaces after each full stop).
 *
 * The observations come from the bundled CSV files (`data`), or, when a `provider` is set, from it: the replay
 * tool swaps what the provider returns to reveal rows over simulated time. `override` replaces an answer
 * (./vendor-server.ts).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { seriesSpec } from '../../pipeline/ingest/catalogue.js';
import { fredObservationsFromCsv, fredPage, type FredJsonObservation } from './fred-json.js';
import { jsonReply, startVendorServer, type ListenOptions, type RawReply, type VendorServer } from './vendor-server.js';

export type { Reply } from './vendor-server.js';

export const TEST_KEY = 'abcdefghijklmnopqrstuvwxyz012345';

/** The observations FRED has for a series at the moment; `undefined` for a series it does not know. */
export interface FredProvider {
  observations(id: string): readonly FredJsonObservation[] | undefined;
}

export interface FredServer extends VendorServer {
  /** Observations served per series (from the bundled files); tests may replace them. */
  data: Map<string, FredJsonObservation[]>;
  /** When set, asked instead of `data`. */
  provider: FredProvider | null;
}

export interface FredServerOptions extends ListenOptions {
  provider?: FredProvider;
  /** The key the server accepts (default TEST_KEY). */
  key?: string;
}

const BAD_KEY = 'Bad Request.  The value for variable api_key is not registered.  Read https://fred.stlouisfed.org/docs/api/api_key.html for more information.';

/** Starts the server with the bundled observations of `seriesIds` read from `dataDir`. */
export async function startFredServer(dataDir: string, seriesIds: readonly string[], options: FredServerOptions = {}): Promise<FredServer> {
  const data = new Map<string, FredJsonObservation[]>();
  for (const id of seriesIds) {
    const spec = seriesSpec(id);
    data.set(id, fredObservationsFromCsv(spec, await readFile(path.join(dataDir, spec.file), 'utf8')));
  }
  const key = options.key ?? TEST_KEY;
  let state: FredServer | undefined;

  const answer = (url: URL): RawReply => {
    if (url.pathname !== '/fred/series/observations') return jsonReply(404, { error_code: 404, error_message: 'Not Found' });
    if (url.searchParams.get('api_key') !== key) return jsonReply(400, { error_code: 400, error_message: BAD_KEY });
    const id = url.searchParams.get('series_id') ?? '';
    const provider = state?.provider;
    const all = provider ? provider.observations(id) : data.get(id);
    if (!all) return jsonReply(400, { error_code: 400, error_message: 'Bad Request.  The series does not exist.' });
    const start = url.searchParams.get('observation_start') ?? '';
    const selected = all.filter((o) => o.date >= start);
    return jsonReply(200, fredPage(selected, Number(url.searchParams.get('offset') ?? 0), Number(url.searchParams.get('limit') ?? 100_000)));
  };

  state = Object.assign(await startVendorServer(answer, options), { data, provider: options.provider ?? null });
  return state;
}
