/**
 * A TCP proxy in front of a PostgreSQL server that fails the first array-type lookup postgres.js sends on a new
 * connection (`fetch_types`), the way a store fails it: answering the lookup with an ERROR (a cancelled
 * statement, 57014) on a session that goes on, ending the session with the FATAL of a fast shutdown (57P01)
 * then closing it, resetting the connection, or ending the session and refusing connections until `reopen()`
 * (a restart). Only the first lookup after `arm()` is failed; everything else passes through untouched.
 * Messages: PostgreSQL 15 documentation, 55.7 "Message Formats" (ErrorResponse, ReadyForQuery).
 */
import net from 'node:net';

export type LookupFault = 'error' | 'terminated' | 'reset' | 'restart';

export interface TypeLookupProxy {
  port: number;
  /** Connections the proxy accepted. */
  connections: number;
  arm(fault: LookupFault): void;
  /** Accepts connections again after a `restart` fault. */
  reopen(): Promise<void>;
  close(): Promise<void>;
}

/** The array-type lookup's text, as postgres.js 3.4.9 sends it (postgres/src/connection.js, `fetchArrayTypes`). */
const LOOKUP = Buffer.from('from pg_catalog.pg_type a');

function errorResponse(severity: 'ERROR' | 'FATAL', code: string, message: string): Buffer {
  const fields = Buffer.concat([
    ...(
      [
        ['S', severity],
        ['V', severity],
        ['C', code],
        ['M', message],
      ] as const
    ).map(([type, value]) => Buffer.from(`${type}${value}\0`)),
    Buffer.from([0]),
  ]);
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([head, fields]);
}

const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]); // 'Z', length 5, idle

export async function typeLookupProxy(upstreamPort: number): Promise<TypeLookupProxy> {
  let armed: LookupFault | null = null;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    proxy.connections++;
    const upstream = net.connect(upstreamPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => {});
    }
    upstream.on('data', (chunk) => client.write(chunk));
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.on('data', (chunk: Buffer) => {
      const fault = armed && chunk.includes(LOOKUP) ? armed : null;
      if (!fault) return void upstream.write(chunk);
      armed = null;
      if (fault === 'error')
        return void client.write(Buffer.concat([errorResponse('ERROR', '57014', 'canceling statement due to statement timeout'), READY_FOR_QUERY]));
      if (fault === 'reset') return void client.resetAndDestroy();
      if (fault === 'restart') server.close();
      client.end(errorResponse('FATAL', '57P01', 'terminating connection due to administrator command'));
      upstream.destroy();
    });
  });
  const listen = (port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
    });
  const proxy: TypeLookupProxy = {
    port: await listen(0),
    connections: 0,
    arm: (fault) => void (armed = fault),
    reopen: async () => void (await listen(proxy.port)),
    close: () =>
      new Promise((resolve) => {
        for (const s of open) s.destroy();
        if (server.listening) server.close(() => resolve());
        else resolve();
      }),
  };
  return proxy;
}
