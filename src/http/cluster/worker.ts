/**
 * One worker of `serve --workers N`: the same `startServer` as a server alone, on the port the primary shares
 * (node:cluster hands the accepted connections round the workers), with the background jobs run only while
 * this worker is the elected leader, `/metrics` answered for every worker, its pid in `X-Served-By`, and
 * credential changes made on it held on every worker before they are answered (credential-relay.ts).
 *
 * It tells the primary when it listens, or why it could not start (then it exits 1), and why it stops when it
 * listened while its store was away at start and then gave up waiting (src/http/store-start.ts: the primary ends
 * the serve with that error, as a server alone would). On SIGTERM or SIGINT (the
 * primary forwards them; a terminal's Ctrl-C reaches every process of the group) it stops accepting, finishes
 * the requests in flight, stops its jobs, gives up the lead and exits 0. It does the same when the primary
 * goes away (its channel closes), so no worker outlives its primary.
 */
import type { Config } from '../../core/config.js';
import { startServer, type ServeOptions } from '../server.js';
import { joinCredentialChanges } from './credential-relay.js';
import { clusterExposition, joinClusterMetrics } from './metrics.js';
import { toWire, type FailedMessage, type ReadyMessage } from './messages.js';

export interface WorkerOptions extends Omit<ServeOptions, 'singletons' | 'exposition' | 'servedBy' | 'siblings'> {
  /** What the health check warns of at start, for the primary to print once (the command asks the app). */
  startWarnings: (server: Awaited<ReturnType<typeof startServer>>) => Promise<string[]>;
}

const send = (msg: ReadyMessage | FailedMessage): Promise<void> =>
  new Promise((resolve) => {
    if (!process.send || !process.connected) return resolve();
    process.send(msg, undefined, {}, () => resolve());
  });

/** Runs the worker until it is told to stop; resolves with the exit code the process should end with. */
export async function runWorker(config: Config, options: WorkerOptions): Promise<number> {
  joinClusterMetrics();
  // Before the server exists, so that no worker answers a request before its siblings count it (credential-relay.ts).
  const siblings = joinCredentialChanges();
  // Listening for the stop from the first moment: a signal during the start ends the worker once it has started.
  const stopped = new Promise<void>((resolve) => {
    const stop = (): void => {
      process.removeListener('disconnect', stop);
      resolve();
    };
    // `on`, not `once`: a second signal while draining is absorbed, not fatal.
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    process.on('disconnect', stop);
  });
  const { startWarnings, ...serve } = options;
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(config, {
      ...serve,
      singletons: 'elect',
      servedBy: String(process.pid),
      siblings,
      exposition: (metrics) => clusterExposition(metrics.registry),
    });
  } catch (err) {
    await send({ t: 'tradeseal:failed', error: toWire(err) });
    return 1;
  }
  const warnings = await startWarnings(server).catch(() => []);
  await send({ t: 'tradeseal:ready', url: server.url, store: server.store.kind, warnings });
  const gaveUp = await Promise.race([stopped.then(() => null), server.failed.catch((err: unknown) => err)]);
  if (gaveUp !== null) {
    await send({ t: 'tradeseal:failed', error: toWire(gaveUp) });
    await server.close().catch(() => {});
    return 1;
  }
  try {
    await server.close();
    return 0;
  } catch (err) {
    server.app.log.error({ err }, 'the worker did not close cleanly');
    return 1;
  }
}
