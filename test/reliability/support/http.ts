/**
 * The suite's HTTP client and load: node:http over keep-alive connections, each request with a client-side
 * timeout, each answer recorded with its status, body, and when it was sent and answered. A request that got
 * no answer is recorded too: status 0 with the error's code (ECONNREFUSED, ECONNRESET, `client_timeout`).
 */
import http from 'node:http';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** For status 0: why there is no answer. */
  error?: string;
  sentAt: number;
  answeredAt: number;
  ms: number;
}

export interface RequestSpec {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** A value is sent as JSON; a string or Buffer as is (with the headers the caller gives). */
  body?: unknown;
}

export class Client {
  private readonly agent: http.Agent;

  constructor(
    private readonly baseUrl: string,
    sockets = 64,
    private readonly timeoutMs = 30_000,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  }

  send(spec: RequestSpec): Promise<Answer> {
    const sentAt = Date.now();
    const raw = spec.body === undefined ? undefined : typeof spec.body === 'string' || Buffer.isBuffer(spec.body) ? spec.body : JSON.stringify(spec.body);
    const headers: Record<string, string | number> = {
      ...(raw !== undefined && typeof spec.body !== 'string' && !Buffer.isBuffer(spec.body) ? { 'content-type': 'application/json' } : {}),
      ...spec.headers,
      ...(raw !== undefined ? { 'content-length': Buffer.byteLength(raw) } : {}),
    };
    return new Promise<Answer>((resolve) => {
      const finish = (a: Omit<Answer, 'sentAt' | 'answeredAt' | 'ms'>): void => {
        const answeredAt = Date.now();
        resolve({ ...a, sentAt, answeredAt, ms: answeredAt - sentAt });
      };
      const req = http.request(new URL(spec.path, this.baseUrl), { method: spec.method, headers, agent: this.agent, timeout: this.timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => finish({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (err: NodeJS.ErrnoException) => finish({ status: 0, headers: {}, body: '', error: err.code ?? err.message }));
      });
      req.on('timeout', () => req.destroy(Object.assign(new Error('client timeout'), { code: 'client_timeout' })));
      req.on('error', (err: NodeJS.ErrnoException) => finish({ status: 0, headers: {}, body: '', error: err.code ?? err.message }));
      req.end(raw);
    });
  }

  /** Sends and parses a JSON answer; throws unless the status is `expected`. */
  async json<T = Record<string, unknown>>(spec: RequestSpec, expected: number): Promise<T> {
    const a = await this.send(spec);
    if (a.status !== expected) throw new Error(`${spec.method} ${spec.path}: expected ${expected}, got ${a.status} ${a.error ?? a.body.slice(0, 500)}`);
    return JSON.parse(a.body) as T;
  }

  close(): void {
    this.agent.destroy();
  }
}

export interface Sample<T> extends Answer {
  worker: number;
  /** What the worker sent (its `next` result), for checking the answer against it afterwards. */
  request: T;
}

/**
 * A closed-loop load: `workers` loops, each sending its next request as soon as the previous one is answered,
 * until `stop()` returns true. Returns every sample in the order they were answered.
 */
export async function runLoad<T extends RequestSpec>(
  client: Client,
  options: {
    workers: number;
    next: (worker: number) => T;
    stop: () => boolean;
    onAnswer?: (s: Sample<T>) => void;
    /** Pause after an answer without a status (the server is gone), so a dead server is not spun on. */
    pauseAfterNoAnswerMs?: number;
  },
): Promise<Array<Sample<T>>> {
  const samples: Array<Sample<T>> = [];
  await Promise.all(
    Array.from({ length: options.workers }, async (_, worker) => {
      while (!options.stop()) {
        const request = options.next(worker);
        const answer = await client.send(request);
        const sample = { ...answer, worker, request };
        samples.push(sample);
        options.onAnswer?.(sample);
        if (answer.status === 0) await new Promise((resolve) => setTimeout(resolve, options.pauseAfterNoAnswerMs ?? 50));
      }
    }),
  );
  return samples;
}
