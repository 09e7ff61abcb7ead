/**
 * A client over real HTTPS (node:https), optionally presenting a client certificate. Each request opens its
 * own connection (`agent: false`), so a certificate is never carried over from another request's session.
 */
import https from 'node:https';
import type { PeerCertificate, TLSSocket } from 'node:tls';

export interface ClientTls {
  /** The CA the server's certificate is checked against; omit with `insecure` for an expired server certificate. */
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  insecure?: boolean;
}

export interface HttpsResponse {
  status: number;
  body: string;
  json<T = Record<string, unknown>>(): T;
  /** The certificate the server presented on this connection. */
  serverCertificate: PeerCertificate;
}

export function httpsRequest(url: string, tls: ClientTls, options: { method?: string; body?: unknown; token?: string } = {}): Promise<HttpsResponse> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method: options.method ?? (payload ? 'POST' : 'GET'),
        agent: false,
        ...(tls.ca ? { ca: tls.ca } : {}),
        ...(tls.cert ? { cert: tls.cert } : {}),
        ...(tls.key ? { key: tls.key } : {}),
        rejectUnauthorized: !tls.insecure,
        headers: {
          ...(payload ? { 'content-type': 'application/json' } : {}),
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        },
      },
      (res) => {
        const serverCertificate = (res.socket as TLSSocket).getPeerCertificate();
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => void (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, json: <T>() => JSON.parse(body) as T, serverCertificate }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
