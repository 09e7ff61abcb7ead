/**
 * The embedded socket server with several concurrent connections: every answer goes to the client that asked,
 * transactions stay whole, and a client that vanishes mid-cycle or mid-transaction does not wedge the rest.
 * Runs on PGlite whatever the test database mode.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Sql } from '../../src/store/driver.js';
import { serveEmbedded, type EmbeddedServer } from '../../src/store/embedded-server.js';
import { guardRequestCycles, ReadyForQueryWatcher, SOCKET_SERVER_MEMBERS } from '../../src/store/pglite-cycle-guard.js';

let db: PGlite;
let server: EmbeddedServer;
const pools: Sql[] = [];

beforeAll(async () => {
  db = await PGlite.create();
  server = await serveEmbedded(db);
});

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end({ timeout: 1 })));
  await server?.stop();
  await db?.close();
});

function pool(max: number): Sql {
  const sql = connect(server.url, { max });
  pools.push(sql);
  return sql;
}

/** Backend message: type byte, int32 length (including itself), body. */
function message(type: string, body: number[]): number[] {
  const length = body.length + 4;
  return [type.charCodeAt(0), length >>> 24, (length >>> 16) & 0xff, (length >>> 8) & 0xff, length & 0xff, ...body];
}

describe('ReadyForQueryWatcher', () => {
  const I = 0x49;
  const T = 0x54;
  // A DataRow whose bytes contain what looks like ReadyForQuery(Idle): framing must not be fooled.
  const trap = message('D', [0, 1, 0, 0, 0, 6, 0x5a, 0, 0, 0, 5, I]);
  it.each([
    { stream: 'no ReadyForQuery', bytes: [...message('1', []), ...message('2', [])], status: null },
    { stream: 'ReadyForQuery Idle last', bytes: [...message('C', [0x53, 0]), ...message('Z', [I])], status: I },
    { stream: 'ReadyForQuery in transaction', bytes: [...message('C', [0x53, 0]), ...message('Z', [T])], status: T },
    { stream: 'a row that contains the bytes of ReadyForQuery', bytes: [...message('Z', [T]), ...trap], status: T },
  ])('reports $stream, however the stream is split', ({ bytes, status }) => {
    for (let split = 0; split <= bytes.length; split++) {
      const watcher = new ReadyForQueryWatcher();
      watcher.push(new Uint8Array(bytes.slice(0, split)));
      watcher.push(new Uint8Array(bytes.slice(split)));
      expect(watcher.lastStatus).toBe(status);
    }
    const byteByByte = new ReadyForQueryWatcher();
    for (const b of bytes) byteByByte.push(new Uint8Array([b]));
    expect(byteByByte.lastStatus).toBe(status);
  });
});

describe('guardRequestCycles', () => {
  it('hands the socket server exactly the members the installed pglite-socket calls on its db, nothing else', () => {
    const server = readFileSync(createRequire(import.meta.url).resolve('@electric-sql/pglite-socket'), 'utf8');
    const called = new Set([...server.matchAll(/this\.db\.(\w+)/g)].map((m) => m[1]!));
    expect([...called].sort()).toEqual([...SOCKET_SERVER_MEMBERS].sort());
    expect(Object.keys(guardRequestCycles(db)).sort()).toEqual([...SOCKET_SERVER_MEMBERS].sort());
  });
});

describe('serveEmbedded with concurrent connections', () => {
  it('answers every one of many concurrent parameterised queries from several pools correctly', async () => {
    // Without the request-cycle guard pglite-socket interleaves the extended protocol messages of different
    // connections and hands clients each other's rows (about 300 of these 1200 wrong, silently).
    const sqls = [pool(10), pool(10), pool(10)];
    const checks = Array.from({ length: 1200 }, async (_, i) => {
      const sql = sqls[i % 3]!;
      switch (i % 4) {
        case 0: {
          const rows = await sql<{ x: number }[]>`select ${i}::int as x from generate_series(1, ${(i % 5) + 1})`;
          return rows.length === (i % 5) + 1 && rows.every((r) => r.x === i);
        }
        case 1: {
          const [row] = await sql<{ x: string }[]>`select ${`text ${i}`}::text as x`;
          return row?.x === `text ${i}`;
        }
        case 2: {
          // A statement text of its own: parsed anew, as most first-time queries are.
          const [row] = await sql.unsafe<{ x: number; y: number }[]>(`select ${i} as x, $1::int as y`, [i]);
          return row?.x === i && row.y === i;
        }
        default: {
          const [row] = await sql<{ x: number; y: number }[]>`select ${i}::int as x, ${i}::int * 2 as y`;
          return row?.x === i && row.y === 2 * i;
        }
      }
    });
    const results = await Promise.all(checks);
    expect(results.filter((ok) => !ok)).toHaveLength(0);
  });

  it('keeps concurrent transactions of different connections whole and apart', async () => {
    const a = pool(4);
    const b = pool(4);
    await a`create table ledger (owner text, n int)`;
    const runs = Array.from({ length: 20 }, (_, i) => {
      const sql = i % 2 ? a : b;
      const owner = `t${i}`;
      return sql
        .begin(async (tx) => {
          for (let n = 0; n < 3; n++) await tx`insert into ledger values (${owner}, ${n})`;
          const [mine] = await tx<{ count: number }[]>`select count(*) as count from ledger where owner = ${owner}`;
          if (i % 4 === 0) throw new Error('roll back');
          return mine?.count;
        })
        .catch((e: Error) => e.message);
    });
    const results = await Promise.all(runs);
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => (i % 4 === 0 ? 'roll back' : 3)));
    const [total] = await a<{ count: number }[]>`select count(*) as count from ledger`;
    expect(total?.count).toBe(15 * 3);
  });

  it('rolls back the transaction of a client that disconnects inside it, and serves the others', async () => {
    const leaver = pool(1);
    const stayer = pool(1);
    await stayer`create table left_behind (x int)`;
    const conn = await leaver.reserve();
    await conn.unsafe('begin');
    await conn`insert into left_behind values (1)`;
    await leaver.end({ timeout: 0 }); // drops the socket with the transaction open

    expect(await stayer`select count(*) as n from left_behind`).toEqual([{ n: 0 }]);
    expect(db.isInTransaction()).toBe(false);
  });

  it('holds other clients while one is mid-cycle, and releases them when it vanishes', async () => {
    const raw = net.connect({ host: '127.0.0.1', port: server.port });
    await new Promise((resolve) => raw.once('connect', resolve));
    const received: Buffer[] = [];
    raw.on('data', (chunk) => received.push(chunk));
    const user = Buffer.from('user\0postgres\0database\0postgres\0\0');
    const startup = Buffer.alloc(8);
    startup.writeInt32BE(8 + user.length, 0);
    startup.writeInt32BE(196608, 4); // protocol 3.0
    raw.write(Buffer.concat([startup, user]));
    await expect.poll(() => Buffer.concat(received).includes(Buffer.from([0x5a, 0, 0, 0, 5, 0x49]))).toBe(true);

    // Parse, and Flush so that ParseComplete comes back at once, without the Sync that would end the cycle.
    raw.write(Buffer.from([...message('P', [0, ...Buffer.from('select 1\0'), 0, 0]), ...message('H', [])]));
    await expect.poll(() => Buffer.concat(received).includes(Buffer.from(message('1', [])))).toBe(true);

    const other = pool(1);
    let answered = false;
    const query = other`select 42 as answer`.then((rows) => {
      answered = true;
      return rows;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBe(false);

    raw.destroy();
    expect(await query).toEqual([{ answer: 42 }]);
  });
});
