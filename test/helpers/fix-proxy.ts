/**
 * A TCP proxy between an exchange peer and the engine's FIX session, for faults a real network or a broken
 * venue produces: bytes that are not FIX on the stream to the engine (`inject`), and a connection dropped in
 * the middle of the stream (`cut`, `cutAfter`). It forwards both ways otherwise, byte for byte.
 *
 * `engine` says which end is the engine: `upstream` when the peer connects to the proxy and the proxy to the
 * engine (engine acceptor), `client` when the engine connects to the proxy (engine initiator).
 */
import net from 'node:net';

export interface FixProxy {
  port: number;
  /** Connections made through the proxy so far. */
  readonly connections: number;
  /** Writes `bytes` on the stream to the engine, between two whole messages (at once if the stream is idle). */
  inject(bytes: string | Buffer): void;
  /** Drops both sockets of every open connection, at once, whatever is in flight. */
  cut(): void;
  /**
   * Forwards `messages` more whole messages to the engine and the first bytes of the next one, then drops the
   * connection: what the exchange sent after that never arrives. Resolves when the connection is dropped.
   */
  cutAfter(messages: number): Promise<void>;
  /** Resolves once `n` connections have been made. */
  waitForConnections(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A message's last field: the stream is between two messages when a chunk ends with it. */
const MESSAGE_END = /\x0110=\d{3}\x01$/;

interface Link {
  toEngine: net.Socket;
  fromPeer: net.Socket;
  client: net.Socket;
  upstream: net.Socket;
  atBoundary: boolean;
  pending: Buffer[];
  /** The end of the last chunk, where a message end split between two chunks begins. */
  carry: string;
}

/** A cut asked for by `cutAfter`: messages still to forward, and who waits for the cut. */
interface PlannedCut {
  remaining: number;
  done: () => void;
}

export async function startFixProxy(target: { host?: string; port: number }, engine: 'upstream' | 'client'): Promise<FixProxy> {
  const links = new Set<Link>();
  let connections = 0;
  const waiters = new Set<() => void>();
  let planned: PlannedCut | null = null;

  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host ?? '127.0.0.1');
    const link: Link = {
      client,
      upstream,
      toEngine: engine === 'upstream' ? upstream : client,
      fromPeer: engine === 'upstream' ? client : upstream,
      atBoundary: true,
      pending: [],
      carry: '',
    };
    links.add(link);
    connections++;
    for (const w of waiters) w();
    const end = (): void => {
      links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    // Engine-bound bytes are tracked so that an injection lands between two messages, not inside one.
    link.fromPeer.on('data', (chunk: Buffer) => {
      if (planned && cutWithin(link, chunk, planned)) return;
      link.toEngine.write(chunk);
      link.atBoundary = MESSAGE_END.test(chunk.toString('latin1'));
      if (link.atBoundary) flush(link);
    });
    const engineSide = engine === 'upstream' ? upstream : client;
    const peerSide = engine === 'upstream' ? client : upstream;
    engineSide.on('data', (chunk: Buffer) => peerSide.write(chunk));
  });
  /** Counts the message ends in `chunk`; at the planned one, forwards a part of the next message and cuts. */
  const cutWithin = (link: Link, chunk: Buffer, cut: PlannedCut): boolean => {
    const text = link.carry + chunk.toString('latin1');
    link.carry = text.slice(-7);
    const ends = /\x0110=\d{3}\x01/g;
    for (let m = ends.exec(text); m; m = ends.exec(text)) {
      if (--cut.remaining > 0) continue;
      const end = m.index + m[0].length - (text.length - chunk.length);
      link.toEngine.end(chunk.subarray(0, Math.min(chunk.length, end + 20)));
      link.fromPeer.destroy();
      links.delete(link);
      planned = null;
      cut.done();
      return true;
    }
    return false;
  };
  const flush = (link: Link): void => {
    for (const b of link.pending.splice(0)) link.toEngine.write(b);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    get connections() {
      return connections;
    },
    inject(bytes) {
      const b = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes;
      if (links.size === 0) throw new Error('inject: no connection through the proxy');
      for (const link of links) {
        link.pending.push(b);
        if (link.atBoundary) flush(link);
      }
    },
    cut() {
      for (const link of [...links]) {
        link.client.destroy();
        link.upstream.destroy();
      }
      links.clear();
    },
    cutAfter(messages) {
      if (planned) throw new Error('cutAfter: a cut is already planned');
      return new Promise<void>((done) => {
        planned = { remaining: messages, done };
      });
    },
    waitForConnections(n, timeoutMs = 30_000) {
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (connections < n) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`only ${connections} of ${n} connections through the proxy within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const link of links) {
        link.client.destroy();
        link.upstream.destroy();
      }
      links.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
