/**
 * The shared GET of the data sources (pipeline/sources/http.ts) over real HTTP against a local server: what
 * it returns, what it retries and how long it asks to wait (Retry-After in seconds and as a date, exponential
 * backoff, the cap), what it refuses (a body cut short, chunked or not; a body over the limit), and that a
 * secret of the URL never reaches a message. The waits go to an injected sleep that records them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { httpGet, retryAfterMs, retryDelay, shownUrl, type HttpOptions, type HttpRequest } from '../../../pipeline/sources/http.js';
import { TradesealError } from '../../../src/core/errors.js';
import { startVendorServer, type RawReply, type VendorServer } from '../../../replay/vendors/vendor-server.js';

const SECRET = 'sEcReT0token.12345';
const BODY = JSON.stringify({ data: [1, 2, 3], note: 'x'.repeat(400) });
const NORMAL: RawReply = { status: 200, body: BODY, headers: { 'content-type': 'application/json' } };

let server: VendorServer;
/** Answers the raw server below gives: a chunked body cut off, or one larger than the client reads. */
let raw: http.Server;
let rawUrl: string;
const sleeps: number[] = [];
const OPTIONS: HttpOptions = { backoffMs: 100, maxBackoffMs: 60_000, timeoutMs: 2_000, retries: 3, sleep: async (ms) => void sleeps.push(ms) };

beforeAll(async () => {
  server = await startVendorServer(() => NORMAL);
  raw = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }); // no Content-Length: chunked
    if (req.url?.startsWith('/cut')) {
      res.write(BODY.slice(0, 100), () => res.destroy());
      return;
    }
    for (let i = 0; i < 100; i++) res.write('y'.repeat(1000));
    res.end();
  });
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  rawUrl = `http://127.0.0.1:${(raw.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await server.close();
  raw.closeAllConnections();
  await new Promise((resolve) => raw.close(resolve));
});
beforeEach(() => {
  server.requests.length = 0;
  server.requestHeaders.length = 0;
  server.override = null;
  sleeps.length = 0;
});

const request = (base = server.baseUrl, path = '/data'): HttpRequest => ({
  source: 'Vendor',
  subject: 'SPY',
  url: new URL(`${base}${path}?api_token=${SECRET}&from=2025-01-02`),
  secretParams: ['api_token'],
  headers: { accept: 'application/json' },
});

async function failure(p: Promise<unknown>, code: string): Promise<TradesealError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TradesealError);
  const e = err as TradesealError;
  expect(e.code).toBe(code);
  expect(e.message).toContain('Vendor, SPY: ');
  expect(e.message).toContain('api_token=***&from=2025-01-02');
  expect(`${e.message} ${e.hint ?? ''}`).not.toContain(SECRET);
  return e;
}

describe('httpGet', () => {
  it('returns the status, headers and text of a 2xx, and sends the headers asked for', async () => {
    const answer = await httpGet(request(), OPTIONS);
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(BODY);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(server.requestHeaders[0]?.accept).toBe('application/json');
    expect(server.requests[0]?.searchParams.get('api_token')).toBe(SECRET);
    expect(sleeps).toEqual([]);
  });

  it('retries a 429, waiting the seconds its Retry-After asks for', async () => {
    server.override = (_url, n) =>
      n < 2 ? { status: 429, body: 'Too Many Requests', headers: { 'content-type': 'text/plain', 'retry-after': '7' } } : undefined;
    const answer = await httpGet(request(), OPTIONS);
    expect(answer.text).toBe(BODY);
    expect(server.requests.length).toBe(3);
    expect(sleeps).toEqual([7_000, 7_000]);
  });

  it('reads a Retry-After given as an HTTP date', async () => {
    server.override = (_url, n) => (n === 0 ? { status: 503, body: '', headers: { 'retry-after': new Date(Date.now() + 5_000).toUTCString() } } : undefined);
    await httpGet(request(), OPTIONS);
    expect(sleeps.length).toBe(1);
    // An HTTP date has whole seconds: between 4 and 5 s from now (3 s leaves room for a slow machine).
    expect(sleeps[0]).toBeGreaterThanOrEqual(3_000);
    expect(sleeps[0]).toBeLessThanOrEqual(5_000);
  });

  it('backs off exponentially up to the cap, then gives up with source_unavailable naming the last answer', async () => {
    server.override = () => ({ status: 503, body: 'Service Unavailable', headers: { 'content-type': 'text/plain' } });
    const err = await failure(httpGet(request(), { ...OPTIONS, retries: 4, maxBackoffMs: 300 }), 'source_unavailable');
    expect(err.message).toBe(
      `Vendor, SPY: no useful answer after 5 attempts (last: HTTP 503: Service Unavailable). Request: GET ${server.baseUrl}/data?api_token=***&from=2025-01-02`,
    );
    expect(server.requests.length).toBe(5);
    expect(sleeps).toEqual([100, 200, 300, 300]);
  });

  it('does not ask again now when the source asks to wait longer than a retry may (Retry-After 3600 s): source_unavailable saying so', async () => {
    server.override = (_url, n) =>
      n === 0 ? { status: 429, body: 'Too Many Requests', headers: { 'retry-after': '3600', 'content-type': 'text/plain' } } : undefined;
    const err = await failure(httpGet(request(), { ...OPTIONS, maxBackoffMs: 30_000 }), 'source_unavailable');
    expect(err.message).toContain(
      'the source asked to be asked again in 3600 s (Retry-After), longer than a retry here waits (30 s): not asked again now (last: HTTP 429: Too Many Requests)',
    );
    expect(server.requests.length).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('hands a 4xx other than 408 and 429 to the caller, body and all, after one request', async () => {
    server.override = () => ({ status: 404, body: '{"message":"Ticker Not Found."}', headers: { 'content-type': 'application/json' } });
    const answer = await httpGet(request(), OPTIONS);
    expect(answer.status).toBe(404);
    expect(answer.text).toBe('{"message":"Ticker Not Found."}');
    expect(server.requests.length).toBe(1);
  });

  it('throws what refuse returns at once, even for a status it would retry', async () => {
    server.override = () => ({ status: 429, body: 'You exceeded your daily API requests limit.', headers: { 'retry-after': '1' } });
    const refuse = () => new TradesealError('source_unavailable', 'used up');
    const err: unknown = await httpGet({ ...request(), refuse }, OPTIONS).catch((e: unknown) => e);
    expect((err as TradesealError).message).toBe('used up');
    expect(server.requests.length).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('times out a silent server on each attempt, then gives up', async () => {
    server.override = () => ({ hang: true });
    const err = await failure(httpGet(request(), { ...OPTIONS, timeoutMs: 100, retries: 1 }), 'source_unavailable');
    expect(err.message).toContain('no useful answer after 2 attempts (last: no answer within 100 ms)');
    expect(server.requests.length).toBe(2);
  });

  it('retries a body cut short of its Content-Length instead of returning it', async () => {
    server.override = (_url, n) => (n === 0 ? { truncate: true } : undefined);
    const answer = await httpGet(request(), OPTIONS);
    expect(answer.text).toBe(BODY);
    expect(server.requests.length).toBe(2);
  });

  it('gives up on bodies that are always cut short with source_unavailable', async () => {
    server.override = () => ({ truncate: true });
    const err = await failure(httpGet(request(), { ...OPTIONS, retries: 1 }), 'source_unavailable');
    expect(err.message).toContain('(last: HTTP 200, but the body was cut short');
  });

  it('refuses a chunked body whose connection closes before its last chunk', async () => {
    const err = await failure(httpGet(request(rawUrl, '/cut'), { ...OPTIONS, retries: 1 }), 'source_unavailable');
    expect(err.message).toContain('HTTP 200, but the body was cut short');
    expect(sleeps).toEqual([100]);
  });

  it('refuses a body over maxBytes declared by its Content-Length, without retrying', async () => {
    const err = await failure(httpGet(request(), { ...OPTIONS, maxBytes: 100 }), 'source_answer_invalid');
    expect(err.message).toContain(`a body of ${Buffer.byteLength(BODY)} bytes (Content-Length), more than the 100 read`);
    expect(server.requests.length).toBe(1);
  });

  it('stops reading a streamed body once it passes maxBytes', async () => {
    const err = await failure(httpGet(request(rawUrl, '/big'), { ...OPTIONS, maxBytes: 10_000 }), 'source_answer_invalid');
    expect(err.message).toContain('a body of more than 10000 bytes');
  });

  it('retries a network fault and names it', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await failure(httpGet(request(`http://127.0.0.1:${port}`), { ...OPTIONS, retries: 2 }), 'source_unavailable');
    expect(err.message).toContain('after 3 attempts (last: network error: ECONNREFUSED)');
  });

  it('keeps a secret out of a message even when the vendor echoes the URL', async () => {
    server.override = (url) => ({ status: 502, body: `<html><title>Bad gateway for ${url.search}</title></html>`, headers: { 'content-type': 'text/html' } });
    const err = await failure(httpGet(request(), { ...OPTIONS, retries: 0 }), 'source_unavailable');
    expect(err.message).toContain('HTTP 502: an HTML page ("Bad gateway for ?api_token=***&from=2025-01-02")');
  });
});

describe('the retry rule', () => {
  it.each([
    ['seconds', '120', 120_000],
    ['zero', '0', 0],
    ['an HTTP date 90 s ahead', 'Wed, 21 Oct 2026 07:29:30 GMT', 90_000],
    ['an HTTP date in the past', 'Wed, 21 Oct 2026 07:00:00 GMT', 0],
    ['nonsense', 'soon', null],
  ])('reads Retry-After as %s', (_name, value, expected) => {
    expect(retryAfterMs(value, Date.parse('2026-10-21T07:28:00Z'))).toBe(expected);
  });

  it('doubles the backoff from backoffMs, caps it, and lets Retry-After lengthen it up to the cap', () => {
    const options = { backoffMs: 1_000, maxBackoffMs: 30_000 };
    expect([0, 1, 2, 3, 4, 5].map((a) => retryDelay(a, null, options))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000]);
    expect(retryDelay(0, 7_000, options)).toBe(7_000);
    expect(retryDelay(3, 2_000, options)).toBe(8_000);
    expect(retryDelay(0, 120_000, options)).toBe(30_000);
  });

  it('shows a URL with its secret parameters as ***', () => {
    expect(shownUrl(new URL('https://eodhd.com/api/eod/SPY.US?api_token=abc&fmt=json'), ['api_token'])).toBe(
      'https://eodhd.com/api/eod/SPY.US?api_token=***&fmt=json',
    );
  });
});
