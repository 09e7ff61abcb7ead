/**
 * Test helper: a local FRED API (node:http on 127.0.0.1, port 0) serving `/fred/series/observations` from
 * the bundled CSV files, the way FRED answers: JSON pages (`limit`, `offset`, `count`), `observation_start`,
 * "." for missing values, and FRED's 400 body for a key it does not know. `override` lets a test answer a
 * request differently (a 500, a 429, silence) before the normal answer.
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { seriesSpec } from '../../../pipeline/ingest/catalogue.js';
import { fredObservationsFromCsv, fredPage, type FredJsonObservation } from './fred-json.js';

export const TEST_KEY = 'abcdefghijklmnopqrstuvwxyz012345';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Never answer (to exercise the client's timeout). */
  hang?: boolean;
}

export interface FredServer {
  baseUrl: string;
  requests: URL[];
  /** Observations served per series; tests may replace them. */
  data: Map<string, FredJsonObservation[]>;
  /** Called with each request and its 0-based number; a Reply replaces the normal answer. */
  override: ((url: URL, n: number) => Reply | undefined) | null;
  close(): Promise<void>;
}

export async function startFredServer(dataDir: string, seriesIds: readonly string[]): Promise<FredServer> {
  const data = new Map<string, FredJsonObservation[]>();
  for (const id of seriesIds) {
    const spec = seriesSpec(id);
    data.set(id, fredObservationsFromCsv(spec, await readFile(path.join(dataDir, spec.file), 'utf8')));
  }
  const state: FredServer = { baseUrl: '', requests: [], data, override: null, close: async () => undefined };

  const answer = (url: URL): Reply => {
    if (url.pathname !== '/fred/series/observations') return { status: 404, body: { error_code: 404, error_message: 'Not Found' } };
    if (url.searchParams.get('api_key') !== TEST_KEY) {
      return { status: 400, body: { error_code: 400, error_message: 'Bad Request.  The value for variable api_key is not registered.  Read https://fred.stlouisfed.org/docs/api/api_key.html for more information.' } };
    }
    const all = data.get(url.searchParams.get('series_id') ?? '');
    if (!all) return { status: 400, body: { error_code: 400, error_message: 'Bad Request.  The series does not exist.' } };
    const start = url.searchParams.get('observation_start') ?? '';
    const selected = all.filter((o) => o.date >= start);
    return { status: 200, body: fredPage(selected, Number(url.searchParams.get('offset') ?? 0), Number(url.searchParams.get('limit') ?? 100_000)) };
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const n = state.requests.push(url) - 1;
    const reply = state.override?.(url, n) ?? answer(url);
    if (reply.hang) return;
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
