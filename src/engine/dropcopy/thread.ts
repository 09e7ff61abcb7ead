/**
 * Runs the FIX drop-copy session (runner.ts) on a worker thread of `tradeseal serve`, when the store is a
 * PostgreSQL server.
 *
 * Why a thread: the session's work per fill (parsing, the frame check, the batch's statements and their
 * results) is done on whichever event loop runs it. On the server's own, it is taken from the requests that
 * loop serves: a 250 fills/s stream of ORPHANs cost authorize about 15 % of its throughput, twice the CPU the
 * stream itself used, because the loop is authorize's bottleneck. On a thread of its own the session has its
 * own loop and its own pool (thread-main.ts); what it shares with the requests is the machine's cores.
 *
 * The thread reports its log records, its metrics and whether it holds the session by message
 * (thread-protocol.ts); they are logged and recorded here, so `/metrics` and the server's log read the same as
 * with the session in the server's thread. A thread that ends unexpectedly (an uncaught error) has lost its
 * sockets, so its lock and its session are gone: it is logged and a new thread stands again after `retryMs`.
 * A stop asks the thread to log out and commit (runner.ts), and ends it by force after `STOP_WAIT_MS`: what it
 * had not committed is resent by the peer to whichever process runs the session next.
 *
 * The embedded store runs in the server's thread (PGlite), and every statement of the session would run there
 * anyway: with it, the session stays in the server's thread (server.ts).
 */
import type { AddressInfo } from 'node:net';
import type { Worker } from 'node:worker_threads';
import type { Config } from '../../core/config.js';
import { LEADER_RETRY_MS } from '../../store/leader.js';
import { startModuleWorker } from '../../core/worker-start.js';
import { applyMetricOps, type DropCopyMetrics } from './metrics.js';
import type { DropCopyRunner, RunnerLog } from './runner.js';
import { fromWire, type FromThread, type ThreadData, type ToThread } from './thread-protocol.js';

/** How long a stop waits for the thread to log out, commit and end before it is ended by force. */
export const STOP_WAIT_MS = 15_000;

export interface DropCopyThreadOptions {
  /** The PostgreSQL server's URL. */
  url: string;
  config: Config;
  log: RunnerLog;
  metrics?: DropCopyMetrics;
  retryMs?: number;
  /** Told of each thread started (tests end one as a crash would; a diagnostic can read its resources). */
  onWorker?: (worker: Worker) => void;
}

export function startDropCopyThread(options: DropCopyThreadOptions): DropCopyRunner {
  const { log } = options;
  const retryMs = options.retryMs ?? LEADER_RETRY_MS;
  const workerData: ThreadData = { url: options.url, config: options.config, retryMs: options.retryMs ?? null };
  let holding = false;
  let address: AddressInfo | null = null;
  let stopping = false;
  let worker: Worker | null = null;
  let exited: Promise<void> = Promise.resolve();
  let restart: NodeJS.Timeout | undefined;

  const start = (): void => {
    const w = startModuleWorker(import.meta.url, './thread-main', { workerData });
    worker = w;
    options.onWorker?.(w);
    exited = new Promise((resolve) => {
      w.on('message', (message: FromThread) => {
        if (message.type === 'log') {
          const obj = fromWire(message.obj);
          if (message.level === 'info') log.info(message.msg ?? String(obj));
          else if (obj === undefined) log[message.level](message.msg ?? '');
          else log[message.level](obj, message.msg);
        } else if (message.type === 'metrics') {
          if (options.metrics) applyMetricOps(options.metrics, message.ops);
        } else if (message.type === 'holding') {
          holding = message.holding;
          address = message.address as AddressInfo | null;
        } else {
          // Stopped: its pool is closed and its lock given up; whatever handle a library left open goes with it.
          void w.terminate();
        }
      });
      w.on('error', (err) => log.error({ err }, "FIX drop copy: the session's thread failed"));
      w.once('exit', (code) => {
        worker = null;
        holding = false;
        address = null;
        // The thread's sockets went with it: its lock is released, and the peer's connection closed.
        options.metrics?.dropCopyLoggedOn.set(0);
        resolve();
        if (stopping) return;
        log.error(`FIX drop copy: the session's thread ended (exit code ${code}); a new one stands in ${retryMs} ms`);
        restart = setTimeout(start, retryMs);
        restart.unref();
      });
    });
  };
  start();

  return {
    get holding() {
      return holding;
    },
    get address() {
      return address;
    },
    async stop() {
      if (stopping) return exited;
      stopping = true;
      if (restart) clearTimeout(restart);
      const w = worker;
      if (w === null) return;
      const force = setTimeout(() => {
        log.error(`FIX drop copy: the session's thread did not stop within ${STOP_WAIT_MS} ms; ended by force`);
        void w.terminate();
      }, STOP_WAIT_MS);
      w.postMessage({ type: 'stop' } satisfies ToThread);
      await exited;
      clearTimeout(force);
    },
  };
}
