/**
 * `GET /metrics` under `serve --workers N`: a scrape reaches one worker, which asks the primary; the primary
 * collects every worker's registry (prom-client's AggregatorRegistry) and hands the aggregate back. How each
 * metric is combined is declared beside it (src/http/metrics.ts): sums for counts, one reading for what is
 * read from the store.
 */
import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import { TradesealError } from '../../core/errors.js';
import { isMetricsAnswer, isWorkerMessage, type MetricsAnswer } from './messages.js';

/** How long a worker waits for the aggregate (prom-client gives up on a silent worker after 5 s). */
const ANSWER_TIMEOUT_MS = 6000;

/** In the primary: answers the workers' requests for the aggregate. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, msg: unknown) => {
    if (!isWorkerMessage(msg) || msg.t !== 'tradeseal:metrics?') return;
    const answer = (a: Omit<MetricsAnswer, 't' | 'id'>): void => {
      if (worker.isConnected()) worker.send({ t: 'tradeseal:metrics', id: msg.id, ...a } satisfies MetricsAnswer);
    };
    aggregator.clusterMetrics().then(
      (text) => answer({ text }),
      (err: unknown) => answer({ error: (err as Error).message }),
    );
  });
}

/**
 * In a worker, before anything else: prom-client answers the primary's collection from now on (an empty
 * registry until the server is built), so that a worker still starting does not stall a scrape.
 */
export function joinClusterMetrics(): void {
  new AggregatorRegistry();
}

/** In a worker: reports `registry` to the primary, and returns the exposition `GET /metrics` answers. */
export function clusterExposition(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry]);
  let next = 0;
  const waiting = new Map<number, (a: MetricsAnswer) => void>();
  process.on('message', (msg: unknown) => {
    if (isMetricsAnswer(msg)) waiting.get(msg.id)?.(msg);
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const fail = (why: string): void => {
        waiting.delete(id);
        reject(new TradesealError('service_unavailable', `the metrics of the other workers are unavailable: ${why}`));
      };
      const timer = setTimeout(() => fail('the primary did not answer'), ANSWER_TIMEOUT_MS);
      waiting.set(id, (a) => {
        clearTimeout(timer);
        waiting.delete(id);
        if (a.text !== undefined) resolve(a.text);
        else fail(a.error ?? 'no answer');
      });
      process.send?.({ t: 'tradeseal:metrics?', id });
    });
}
