/**
 * A webhook receiver for tests: a real HTTP server on 127.0.0.1 that records every request (headers and the
 * raw body) and answers as the test says: a status, a connection reset, or no answer at all.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  deliveryId: string;
  event: string;
  signature: string;
  contentType: string;
  body: string;
  /** This request's number among those of its delivery id (1 for the first). */
  attempt: number;
  /** What the receiver did. */
  answer: Answer;
}

/** A status to answer, `reset` (destroy the connection), or `hang` (never answer). */
export type Answer = number | 'reset' | 'hang';

export interface Receiver {
  url: string;
  received: ReceivedRequest[];
  /** Requests answered 2xx, per delivery id. */
  acknowledged(deliveryId: string): number;
  /** Resolves once `n` requests arrived (or rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(answer: (req: Omit<ReceivedRequest, 'answer'>) => Answer | Promise<Answer> = () => 200): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const waiters: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const deliveryId = String(req.headers['x-signals-delivery'] ?? '');
      const r = {
        path: req.url ?? '',
        deliveryId,
        event: String(req.headers['x-signals-event'] ?? ''),
        signature: String(req.headers['x-signals-signature'] ?? ''),
        contentType: String(req.headers['content-type'] ?? ''),
        body: Buffer.concat(chunks).toString('utf8'),
        attempt: received.filter((x) => x.deliveryId === deliveryId).length + 1,
      };
      void Promise.resolve(answer(r)).then((a) => {
        received.push({ ...r, answer: a });
        for (const w of waiters.splice(0)) w();
        if (a === 'reset') req.socket.destroy();
        else if (a !== 'hang') res.writeHead(a, { 'content-type': 'text/plain' }).end('ok');
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    acknowledged: (id) => received.filter((r) => r.deliveryId === id && typeof r.answer === 'number' && r.answer >= 200 && r.answer < 300).length,
    waitFor: (n, timeoutMs = 10_000) =>
      new Promise<void>((resolve, reject) => {
        const started = Date.now();
        const check = (): void => {
          if (received.length >= n) return resolve();
          if (Date.now() - started > timeoutMs) return reject(new Error(`the receiver got ${received.length} of ${n} requests in ${timeoutMs} ms`));
          waiters.push(check);
          setTimeout(check, 50);
        };
        check();
      }),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
