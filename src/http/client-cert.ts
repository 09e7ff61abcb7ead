/**
 * Client certificates of mutual TLS (setting TLS_CLIENT_CA). The handshake asks every client for a
 * certificate without depending on it; this hook decides per route: every `/engine` route but health needs
 * a certificate that verifies against TLS_CLIENT_CA, before its token is even looked at:
 * - none presented: 401 `client_certificate_required`;
 * - one that does not verify (another CA, expired, not yet valid): 401 `client_certificate_invalid`,
 *   with OpenSSL's reason.
 * A verified certificate becomes `req.clientIdentity` (its common name and the agents it may act for), which
 * authorize and bind hold against the agent (src/engine/mtls.ts). `/v1`, health and the API document are
 * public and stay reachable without a certificate.
 *
 * The route is told by the pattern it matched, not by the raw URL, so no spelling of a path (encoded
 * characters, a trailing slash) slips past.
 */
import { TLSSocket } from 'node:tls';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TradesealError } from '../core/errors.js';
import type { ClientIdentity } from '../engine/mtls.js';
import type { ServedTls } from './tls.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on the routes that need a client certificate, when the engine asks for them. */
    clientIdentity?: ClientIdentity;
  }
}

const PUBLIC_ENGINE_ROUTES = new Set(['/engine/health']);

/** Whether a route (its registered pattern) needs a verified client certificate. */
export const needsClientCertificate = (route: string): boolean =>
  (route === '/engine' || route.startsWith('/engine/')) && !PUBLIC_ENGINE_ROUTES.has(route.replace(/\/+$/, ''));

export function installClientCertificateCheck(app: FastifyInstance, tls: ServedTls): void {
  app.addHook('onRequest', async (req: FastifyRequest) => {
    const route = req.routeOptions.url;
    if (route === undefined || !needsClientCertificate(route)) return;
    req.clientIdentity = verifiedIdentity(req, tls);
  });
}

function verifiedIdentity(req: FastifyRequest, tls: ServedTls): ClientIdentity {
  const socket = req.raw.socket;
  // An empty object is Node's way of saying the client sent no certificate.
  const peer = socket instanceof TLSSocket ? socket.getPeerCertificate() : null;
  if (!(socket instanceof TLSSocket) || !peer || Object.keys(peer).length === 0) {
    throw new TradesealError(
      'client_certificate_required',
      'this route needs a client certificate issued by a CA of TLS_CLIENT_CA; the connection presented none',
    );
  }
  const cn = peer.subject?.CN as string | string[] | undefined;
  const commonName = typeof cn === 'string' ? cn : null;
  if (!socket.authorized) {
    const reason = socket.authorizationError ? String(socket.authorizationError) : 'not verified';
    throw new TradesealError(
      'client_certificate_invalid',
      `the client certificate${commonName ? ` of CN=${commonName}` : ''} does not verify against TLS_CLIENT_CA: ${reason}`,
    );
  }
  return tls.identityOf(commonName);
}
