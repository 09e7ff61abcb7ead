/**
 * What the local vendor servers (./fred-server.ts, ./yahoo-server.ts, ./eodhd-server.ts) share: a `node:http`
 * server on 127.0.0.1 that logs every request, answers it the vendor's way, and lets its caller replace an
 * answer through `override`: a reply of its own (a 429, an HTML page, a body out of order), silence (to run
 * into the client's timeout) or the normal answer cut off halfway (to see a client refuse a truncated body).
 *
 * The servers serve tests and the replay tool; neither is shipped (the build, scripts/build.js, leaves `replay/` out).
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A complete answer: the body is sent as it is, with exactly these headers (and its Content-Length). */
export interface RawReply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

/**
 * What `override` may answer instead of the normal answer: a raw reply; `hang`: never answer; `truncate`: the
 * normal answer's headers with its full Content-Length, then half its body, then the socket is destroyed.
 */
export type Reply = RawReply | { hang: true } | { truncate: true };

export type Override = (url: URL, n: number) => Reply | undefined;

export interface VendorServer {
  /** `http://127.0.0.1:<port>`, the value of the vendor's `*_BASE_URL` setting. */
  baseUrl: string;
  /** Every request, oldest first, and its headers. */
  requests: URL[];
  requestHeaders: IncomingHttpHeaders[];
  /** Called with each request and its 0-based number; a reply replaces the normal answer. */
  override: Override | null;
  close(): Promise<void>;
}

export interface ListenOptions {
  /** Default 0: a free port. */
  port?: number;
}

/** JSON answer with the content type the vendors send. */
export const jsonReply = (status: number, body: unknown, contentType = 'application/json'): RawReply => ({
  status,
  body: JSON.stringify(body),
  headers: { 'content-type': contentType },
});

/** Starts a server that answers each request with `answer(url)` unless `override` replies first. */
export async function startVendorServer(answer: (url: URL) => RawReply, options: ListenOptions = {}): Promise<VendorServer> {
  const state: VendorServer = { baseUrl: '', requests: [], requestHeaders: [], override: null, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const n = state.requests.push(url) - 1;
    state.requestHeaders.push(req.headers);
    const reply = state.override?.(url, n) ?? answer(url);
    if ('hang' in reply) return;
    const normal = 'truncate' in reply ? answer(url) : reply;
    const body = Buffer.from(normal.body ?? '', 'utf8');
    res.writeHead(normal.status, { ...normal.headers, 'content-length': String(body.length) });
    if ('truncate' in reply) {
      res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
      return;
    }
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
