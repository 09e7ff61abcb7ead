/**
 * A local EODHD API answering in EODHD's documented formats (EodHistoricalData/EODHD-openapi, `paths/
 * eod_ticker.yaml`, `div_ticker.yaml`, `splits_ticker.yaml`, `EODHD-openapi/EXAMPLES.md`):
 *
 * - `GET /api/eod/{SYM}?api_token=&fmt=json&from=&to=&period=d&order=a`: an array of `{date, open, high, low,
 *   close, adjusted_close, volume}`, OHLC raw (as traded) and `adjusted_close` adjusted for splits and
 *   dividends; CSV (`Date,Open,High,Low,Close,Adjusted_close,Volume`) unless `fmt=json`, CSV being the default.
 * - `GET /api/div/{SYM}?api_token=&fmt=json&from=&to=`: `{date (ex-date), value (adjusted for later splits),
 *   unadjustedValue (as paid), currency}`.
 * - `GET /api/splits/{SYM}?api_token=&fmt=json&from=&to=`: `{date, split: "4.000000/1.000000"}`.
 * - A token it does not know: 401 `{"status":401,"error":"Unauthorized","message":"Invalid API token"}`; an
 *   unknown symbol: 404; with `dailyLimit` set, the calls after it that day: 402 and the plain-text body
 *   public clients report ("You exceeded your daily API requests limit.").
 *
 * Symbols: `GSPC.INDX`, `SPY.US`, `GLD.US`; the bars come from a provider the replay tool swaps as simulated
 * time passes. `override` replaces an answer (./vendor-server.ts).
 */
import type { DailyBar } from '../../pipeline/sources/market-source.js';
import { adjustedCloses, laterSplitFactors, splitFraction } from './adjustments.js';
import type { BarProvider } from './bundled-bars.js';
import { jsonReply, startVendorServer, type ListenOptions, type RawReply, type VendorServer } from './vendor-server.js';

export type { Reply } from './vendor-server.js';

/** A token of EODHD's shape (letters, digits, a dot), accepted by the server unless another is given. */
export const EODHD_TEST_TOKEN = '6f1e2d3c4b5a69.87654321';

const SYMBOLS: Record<string, string> = { 'GSPC.INDX': 'GSPC', 'SPY.US': 'SPY', 'GLD.US': 'GLD' };

const LIMIT_TEXT = 'You exceeded your daily API requests limit.  Please contact support@eodhistoricaldata.com';

const error = (status: number, name: string, message: string): RawReply => jsonReply(status, { status, error: name, message });

const inRange = (url: URL) => {
  const from = url.searchParams.get('from') ?? '0000-01-01';
  const to = url.searchParams.get('to') ?? '9999-12-31';
  return (date: string) => date >= from && date <= to;
};

/** `/api/eod`: the bars of the range, in JSON or (EODHD's default) CSV. */
function eod(url: URL, bars: readonly DailyBar[]): RawReply {
  const period = url.searchParams.get('period') ?? 'd';
  if (period !== 'd') return error(400, 'Bad Request', `period=${period}: this server serves daily bars (d) only`);
  const adjusted = adjustedCloses(bars);
  const wanted = inRange(url);
  let rows = bars.flatMap((b, i) =>
    wanted(b.date) ? [{ date: b.date, open: b.open, high: b.high, low: b.low, close: b.close, adjusted_close: adjusted[i] ?? b.close, volume: b.volume }] : [],
  );
  if (url.searchParams.get('order') === 'd') rows = rows.reverse();
  if (url.searchParams.get('fmt') === 'json') return jsonReply(200, rows);
  const csv = [
    'Date,Open,High,Low,Close,Adjusted_close,Volume',
    ...rows.map((r) => [r.date, r.open, r.high, r.low, r.close, r.adjusted_close, r.volume].join(',')),
  ];
  return { status: 200, body: `${csv.join('\n')}\n`, headers: { 'content-type': 'text/csv' } };
}

/** `/api/div`: the cash dividends of the range. */
function dividends(url: URL, bars: readonly DailyBar[]): RawReply {
  const factors = laterSplitFactors(bars);
  const wanted = inRange(url);
  return jsonReply(
    200,
    bars.flatMap((b, i) =>
      b.dividend > 0 && wanted(b.date) ? [{ date: b.date, value: b.dividend / (factors[i] ?? 1), unadjustedValue: b.dividend, currency: 'USD' }] : [],
    ),
  );
}

/** `/api/splits`: the splits of the range. */
function splits(url: URL, bars: readonly DailyBar[]): RawReply {
  const wanted = inRange(url);
  return jsonReply(
    200,
    bars.flatMap((b) => {
      if (b.split === 1 || !wanted(b.date)) return [];
      const { numerator, denominator } = splitFraction(b.split);
      return [{ date: b.date, split: `${numerator.toFixed(6)}/${denominator.toFixed(6)}` }];
    }),
  );
}

export interface EodhdServer extends VendorServer {
  /** What the server serves; the replay tool replaces it as simulated time passes. */
  provider: BarProvider;
  /** The token it accepts. */
  token: string;
  /** Calls a day the plan allows (EODHD's free plan: 20); `null`: no limit. */
  dailyLimit: number | null;
  /** Calls made today with the right token; the replay tool sets it to 0 at midnight GMT, when EODHD resets it. */
  callsToday: number;
}

export interface EodhdServerOptions extends ListenOptions {
  token?: string;
  dailyLimit?: number | null;
}

export async function startEodhdServer(provider: BarProvider, options: EodhdServerOptions = {}): Promise<EodhdServer> {
  let state: EodhdServer | undefined;
  const answer = (url: URL): RawReply => {
    const s = state as EodhdServer;
    const match = /^\/api\/(eod|div|splits)\/([^/]+)$/.exec(url.pathname);
    if (!match) return error(404, 'Not Found', 'Not Found');
    if (url.searchParams.get('api_token') !== s.token) return error(401, 'Unauthorized', 'Invalid API token');
    if (s.dailyLimit !== null && s.callsToday >= s.dailyLimit)
      return { status: 402, body: LIMIT_TEXT, headers: { 'content-type': 'text/plain; charset=utf-8' } };
    s.callsToday += 1;
    const series = SYMBOLS[decodeURIComponent(match[2] ?? '')];
    const bars = series ? s.provider.bars(series) : undefined;
    if (!bars) return error(404, 'Not Found', 'Ticker Not Found.');
    if (match[1] === 'eod') return eod(url, bars);
    return match[1] === 'div' ? dividends(url, bars) : splits(url, bars);
  };
  state = Object.assign(await startVendorServer(answer, options), {
    provider,
    token: options.token ?? EODHD_TEST_TOKEN,
    dailyLimit: options.dailyLimit ?? null,
    callsToday: 0,
  });
  return state;
}
