/**
 * The base of the links the signal service hands out (the account's `billing_portal_url` and `docs_url`, the
 * links in mail): PUBLIC_BASE_URL when it is set, else the address the server listens on, so a server started
 * with `--port 9123` names port 9123. A loopback or wildcard listen address is named `localhost` (a browser on
 * this machine reaches it there); any other is named as given. A request's own `Host` is not used: mail goes to
 * someone other than the client, who must not choose where its links point.
 */
import { isIP } from 'node:net';
import type { Config } from './config.js';

/** Addresses a link on this machine should call `localhost`: the loopback ones and the wildcards. */
const LOCAL = new Set(['localhost', '0.0.0.0', '::', '::1', '127.0.0.1']);

/** `http(s)://host:port` of a server listening on `host`:`port`. */
export function listenedBaseUrl(where: { tls: boolean; host: string; port: number }): string {
  const host = LOCAL.has(where.host) || where.host.startsWith('127.') ? 'localhost' : isIP(where.host) === 6 ? `[${where.host}]` : where.host;
  return `${where.tls ? 'https' : 'http'}://${host}:${where.port}`;
}

/** The base of the links: PUBLIC_BASE_URL, else where the settings say the server listens (HOST, PORT, TLS_CERT). */
export function publicBaseUrl(config: Pick<Config, 'publicBaseUrl' | 'host' | 'port' | 'tlsCert'>): string {
  return config.publicBaseUrl ?? listenedBaseUrl({ tls: config.tlsCert !== null, host: config.host, port: config.port });
}
