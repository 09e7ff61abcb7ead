/**
 * A FIX 4.4 counterparty spoken by hand over a raw TCP socket, for the drop-copy session's tests: it sends exactly
 * the bytes a test gives it (good messages framed by ./fix-message.ts, garbage, bad checksums) and collects every
 * message it receives, parsed into tags, for the test to wait on.
 */
import net from 'node:net';
import { fixMessage } from './fix-message.js';

const SOH = '\x01';

export interface Received {
  /** Each tag's first value. */
  tags: Map<number, string>;
  raw: string;
}

export interface RawFixPeer {
  readonly received: Received[];
  /** The next MsgSeqNum this side sends. */
  seq: number;
  /** Frames and sends one message of this side (49 = `sender`, 56 = `target`, 34 = the next seq). */
  send(msgType: string, body: ReadonlyArray<readonly [number, string | number]>, options?: { seq?: number }): string;
  /** Sends bytes as they are. */
  write(bytes: string): void;
  /** The first message received (from `from` on) that `match` accepts, waiting up to `timeoutMs`. */
  waitFor(what: string, match: (m: Received) => boolean, timeoutMs?: number, from?: number): Promise<Received>;
  /** Resolves when the other side closes the connection. */
  closed: Promise<void>;
  close(): void;
}

export function parseMessages(text: string): { messages: Received[]; rest: string } {
  const messages: Received[] = [];
  let rest = text;
  for (;;) {
    const m = /(^|\x01)10=\d{3}\x01/.exec(rest);
    if (!m) break;
    const end = m.index + m[0].length;
    const raw = rest.slice(0, end);
    rest = rest.slice(end);
    const tags = new Map<number, string>();
    for (const field of raw.split(SOH)) {
      const eq = field.indexOf('=');
      if (eq > 0 && !tags.has(Number(field.slice(0, eq)))) tags.set(Number(field.slice(0, eq)), field.slice(eq + 1));
    }
    messages.push({ tags, raw: raw.replaceAll(SOH, '|') });
  }
  return { messages, rest };
}

const stamp = (): string => new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 21);

/** Connects to `port` on 127.0.0.1 as `sender` talking to `target`. */
export async function connectRawPeer(port: number, sender: string, target: string, host = '127.0.0.1'): Promise<RawFixPeer> {
  const socket = await new Promise<net.Socket>((resolve, reject) => {
    const s = net.connect({ port, host }, () => resolve(s));
    s.once('error', reject);
  });
  return rawPeerOn(socket, sender, target);
}

export function rawPeerOn(socket: net.Socket, sender: string, target: string): RawFixPeer {
  const received: Received[] = [];
  const waiters = new Set<() => void>();
  let buffer = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    const { messages, rest } = parseMessages(buffer + chunk);
    buffer = rest;
    received.push(...messages);
    for (const w of [...waiters]) w();
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      resolve();
      for (const w of [...waiters]) w();
    }),
  );
  let isClosed = false;
  void closed.then(() => (isClosed = true));
  const peer: RawFixPeer = {
    received,
    seq: 1,
    send(msgType, body, options = {}) {
      const seq = options.seq ?? peer.seq++;
      const message = fixMessage([[35, msgType], [49, sender], [56, target], [34, seq], [52, stamp()], ...body]);
      socket.write(message, 'latin1');
      return message;
    },
    write(bytes) {
      socket.write(bytes, 'latin1');
    },
    waitFor(what, match, timeoutMs = 10_000, from = 0) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const found = received.slice(from).find(match);
          if (found) {
            done();
            resolve(found);
          } else if (isClosed) {
            done();
            reject(new Error(`${what}: the connection closed first; received ${JSON.stringify(received.map((r) => r.raw))}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${what}: not received within ${timeoutMs} ms; received ${JSON.stringify(received.map((r) => r.raw))}`));
        }, timeoutMs);
        const done = (): void => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    closed,
    close() {
      socket.destroy();
    },
  };
  return peer;
}

/** The body of a fill (ExecutionReport, ExecType F) as an exchange's drop copy sends it. */
export function fillBody(execId: string, account: string, drop: number[] = []): Array<[number, string | number]> {
  const fields: Array<[number, string | number]> = [
    [37, `O-${execId}`],
    [17, execId],
    [150, 'F'],
    [39, '2'],
    [1, account],
    [55, 'AAPL'],
    [54, '1'],
    [38, 100],
    [32, 100],
    [31, 190.25],
    [15, 'USD'],
    [14, 100],
    [151, 0],
    [6, 190.25],
    [60, '20260203-10:04:59.412'],
  ];
  return fields.filter(([t]) => !drop.includes(t));
}

/** Connects once something listens on `port` (a server takes the session's lock and loads the FIX engine first). */
export async function connectWhenListening(port: number, sender: string, target: string, timeoutMs = 20_000): Promise<RawFixPeer> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await connectRawPeer(port, sender, target);
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * Connects and logs on as `sender` (numbering from `seq`; 141=Y when `reset`), again and again while the engine
 * still runs the session on an earlier connection (it closes the new one), for up to 10 s.
 */
export async function logOnWhenFree(port: number, sender: string, target: string, seq: number, reset = false): Promise<{ p: RawFixPeer; answer: Received }> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const p = await connectWhenListening(port, sender, target);
    p.seq = seq;
    p.send('A', [[98, 0], [108, 30], ...(reset ? [[141, 'Y'] as [number, string]] : [])]);
    try {
      return { p, answer: await p.waitFor('the logon answer', (m) => m.tags.get(35) === 'A', 2000) };
    } catch (err) {
      p.close();
      if (Date.now() > deadline) throw err;
    }
  }
}
