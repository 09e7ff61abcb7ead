/**
 * One load run with autocannon: N keep-alive connections, pipelining 1 (each connection has one request in
 * flight, so a connection's requests reach the server in the order they were built), for a fixed duration or
 * a fixed number of requests.
 *
 * Requests are built per connection by a factory (`connection(index)`), so each connection can act as its own
 * agent with its own token and heartbeat sequence. Every response is checked: status counts, the first error
 * bodies, and exact latency percentiles from every response's time (autocannon's own histogram rounds to
 * whole milliseconds). Socket errors and timeouts count as errors too.
 */
import autocannon from 'autocannon';

export interface BuiltRequest {
  body?: string;
  headers?: Record<string, string>;
}

/** What one connection sends: `next()` builds each request in turn; `onOk` sees each 2xx body. */
export interface ConnectionPlan {
  next(): BuiltRequest;
  onOk?: (body: string) => void;
  /** Sees each response that is not a 2xx. */
  onError?: (status: number, body: string) => void;
}

export interface LoadSpec {
  /** The route as printed: `POST /engine/authorize`. */
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** The plan of connection `index` (0-based, in the order autocannon opens them). */
  connection(index: number): ConnectionPlan;
}

export interface LoadOptions {
  url: string;
  connections: number;
  /** Run for this many seconds, or ... */
  seconds?: number;
  /** ... until this many requests were made. */
  amount?: number;
  /** Lets a spec end its run early (e.g. when it runs out of traces to bind). */
  onInstance?: (stop: () => void) => void;
}

export interface Latency {
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}

export interface LoadResult {
  route: string;
  /** Wall time of the run, s. */
  seconds: number;
  responses: number;
  ok: number;
  non2xx: number;
  /** Socket errors and timeouts (no response at all). */
  socketErrors: number;
  statusCounts: Record<string, number>;
  /** The first few non-2xx bodies and socket errors, for the report. */
  errorSamples: string[];
  /** 2xx responses per second. */
  rps: number;
  /** Over every response, ms. */
  latency: Latency;
  /** Every response's time, ms, ascending (to pool several runs' percentiles exactly). */
  samples: Float64Array;
}

const ERROR_SAMPLES = 5;

export async function runLoad(spec: LoadSpec, options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const statusCounts: Record<string, number> = {};
  const errorSamples: string[] = [];
  let ok = 0;
  let non2xx = 0;
  let socketErrors = 0;
  let nextConnection = 0;

  const recordError = (text: string): void => {
    if (errorSamples.length < ERROR_SAMPLES) errorSamples.push(text.length > 600 ? `${text.slice(0, 600)}…` : text);
  };

  const started = process.hrtime.bigint();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        pipelining: 1,
        timeout: 10,
        ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.seconds ?? 10 }),
        setupClient(client) {
          const plan = spec.connection(nextConnection++);
          client.setRequests([
            {
              method: spec.method,
              path: spec.path,
              setupRequest(request) {
                const built = plan.next();
                return {
                  ...request,
                  headers: { ...(built.body !== undefined ? { 'content-type': 'application/json' } : {}), ...built.headers },
                  ...(built.body !== undefined ? { body: built.body } : {}),
                };
              },
              onResponse(status, body) {
                if (status >= 200 && status < 300) {
                  plan.onOk?.(body);
                } else {
                  plan.onError?.(status, body);
                  recordError(`${status} ${body}`);
                }
              },
            },
          ]);
        },
      },
      (error, res) => (error ? reject(error) : resolve(res)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      latencies.push(responseTime);
      statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
      if (statusCode >= 200 && statusCode < 300) ok++;
      else non2xx++;
    });
    instance.on('reqError', (error: unknown) => {
      socketErrors++;
      recordError(`no response: ${error instanceof Error ? error.message : String(error)}`);
    });
    options.onInstance?.(() => instance.stop());
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // autocannon's own count of errors is the authority for timeouts it raised without a 'reqError' we saw.
  socketErrors = Math.max(socketErrors, result.errors);
  const samples = Float64Array.from(latencies).sort();

  return {
    route: spec.name,
    seconds,
    responses: latencies.length,
    ok,
    non2xx,
    socketErrors,
    statusCounts,
    errorSamples,
    rps: ok / seconds,
    latency: percentiles(samples),
    samples,
  };
}

/** Nearest-rank percentiles of response times already in ascending order. */
export function percentiles(sorted: Float64Array): Latency {
  if (sorted.length === 0) return { p50: NaN, p90: NaN, p99: NaN, p999: NaN, max: NaN, mean: NaN };
  // Nearest rank: the smallest value with at least q of the values at or below it.
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
  let sum = 0;
  for (const v of sorted) sum += v;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), p999: at(0.999), max: sorted[sorted.length - 1] as number, mean: sum / sorted.length };
}
