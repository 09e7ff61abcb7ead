/**
 * Caps on the connections one server process holds open: `HTTP_MAX_CONNECTIONS` in all, and
 * `HTTP_MAX_CONNECTIONS_PER_ADDRESS` from one client address (./address-count.ts), so that no client, however
 * many slow connections it opens, can take the descriptors that health checks and other clients' orders need.
 *
 * A connection over a cap is closed as soon as it is accepted, before anything is read or written: answering
 * it (a 503) would mean reading its request first, which is the cost a flood imposes; over HTTPS nothing can be
 * written before a handshake. The client sees its connection closed and retries as for any network failure.
 *
 * Both are counted on the listening server's `connection` event: for HTTPS that is the TCP socket, before the
 * TLS handshake, so that handshakes that never finish are counted too; a connection is released when that
 * socket closes. Node's own `maxConnections` is not used for the server's cap: under node:cluster a worker at
 * it hands the connection back to the primary, which offers it to the next worker, round and round while all
 * of them are full, instead of closing it.
 */
import type { Server, Socket } from 'node:net';
import { AddressCount, addressMatcher } from './address-count.js';

export type Refusal = 'server_cap' | 'address_cap';

export interface ConnectionCaps {
  maxConnections: number;
  perAddress: number;
  /** Addresses and CIDR ranges exempt from the per-address cap (TRUST_PROXY). */
  exempt: readonly string[] | null;
}

export interface CappedConnections {
  /** Connections open now (those refused are not counted). */
  open(): number;
  addresses: AddressCount;
}

/** Applies both caps to `server` (before it listens); `onRefused` is told of each connection closed by one. */
export function capConnections(server: Server, caps: ConnectionCaps, onRefused: (reason: Refusal, address: string) => void): CappedConnections {
  const count = new AddressCount(caps.perAddress, caps.exempt ? addressMatcher(caps.exempt) : undefined);
  let open = 0;
  server.on('connection', (socket: Socket) => {
    // No address: the peer has gone already; the socket closes by itself, counted meanwhile under one key.
    const address = socket.remoteAddress ?? 'unknown';
    const refuse = (reason: Refusal): void => {
      socket.destroy();
      onRefused(reason, address);
    };
    if (open >= caps.maxConnections) return refuse('server_cap');
    const key = count.admit(address);
    if (key === false) return refuse('address_cap');
    open++;
    socket.once('close', () => {
      open--;
      if (key !== null) count.release(key);
    });
  });
  return { open: () => open, addresses: count };
}

/**
 * Says on the log that connections are being refused without a line per connection (a flood would flood the
 * log too): the first refusal at once, then at most one line per `everyMs` for each cap, with the count since.
 */
export function refusalLog(warn: (msg: string) => void, caps: ConnectionCaps, everyMs = 10_000): (reason: Refusal, address: string) => void {
  const last = new Map<Refusal, { at: number; since: number }>();
  return (reason, address) => {
    const now = Date.now();
    const entry = last.get(reason);
    if (entry && now - entry.at < everyMs) {
      entry.since++;
      return;
    }
    const count = (entry?.since ?? 0) + 1;
    last.set(reason, { at: now, since: 0 });
    warn(
      reason === 'server_cap'
        ? `refused ${count} connection(s) at the server's cap of ${caps.maxConnections} open connections (HTTP_MAX_CONNECTIONS), the last from ${address}`
        : `refused ${count} connection(s) over the cap of ${caps.perAddress} open connections per client address (HTTP_MAX_CONNECTIONS_PER_ADDRESS), the last from ${address}`,
    );
  };
}
