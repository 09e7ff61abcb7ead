/**
 * The primary of `serve --workers N` (node:cluster): it forks N workers that each run the server on the one
 * port, and serves nothing itself. The workers share nothing but the store; the primary holds the listening
 * socket and hands connections round them.
 *
 * - Start: resolves once every worker listens. A worker that cannot start (the port is taken, bad TLS files,
 *   the store refuses) fails the whole start with its error, after the others are stopped: no retry loop.
 * - A worker that listened while its store was away at start and then gave up waiting for it says why before it
 *   exits (src/http/store-start.ts): the serve ends with that error after the others are stopped, as a server
 *   alone ends, since the others wait for the same store.
 * - A worker that dies afterwards is replaced after a backoff (1 s, doubling to 30 s; back to 1 s once a
 *   worker has run a minute), each time said on stderr. Replacements that cannot start `MAX_START_FAILURES`
 *   times in a row end the serve with the last one's error.
 * - Credential changes: a worker's revocation, rotation or tier change is relayed to the others, and the
 *   worker learns when each has applied it (credential-relay.ts).
 * - Drain: the signal is forwarded to every worker, which finishes its requests in flight and exits; the
 *   drain resolves once all have exited 0 (a worker still running after `drainTimeoutMs` is killed, and the
 *   drain fails).
 */
import cluster, { type Worker } from 'node:cluster';
import { TradesealError } from '../../core/errors.js';
import { relayCredentialChanges } from './credential-relay.js';
import { fromWire, isWorkerMessage } from './messages.js';
import { serveClusterMetrics } from './metrics.js';

export const MAX_START_FAILURES = 5;
const STABLE_MS = 60_000;

export interface ClusterOptions {
  workers: number;
  /** Said to the operator (stderr): a worker that died, its replacement. */
  warn: (line: string) => void;
  restart?: { baseMs: number; capMs: number };
  drainTimeoutMs?: number;
}

export interface RunningCluster {
  url: string;
  store: string;
  /** What the health check warned of at start. */
  warnings: string[];
  /** The pids of the workers alive now. */
  pids(): number[];
  /** Forwards `signal` to every worker; resolves once all have exited 0. */
  drain(signal: NodeJS.Signals): Promise<void>;
  /** Rejects when the workers can no longer be replaced (the serve ends with that error). */
  failed: Promise<never>;
}

interface Tracked {
  readyAt: number | null;
  failure: TradesealError | null;
}

const describeExit = (code: number | null, signal: string | null): string => (signal ? `killed by ${signal}` : `exit code ${code}`);

export function startCluster(options: ClusterOptions): Promise<RunningCluster> {
  serveClusterMetrics();
  relayCredentialChanges();
  const restart = options.restart ?? { baseMs: 1000, capMs: 30_000 };
  const tracked = new Map<Worker, Tracked>();
  let phase: 'starting' | 'serving' | 'draining' = 'starting';
  let startFailures = 0;
  let crashes = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  let first: { url: string; store: string; warnings: string[] } | null = null;
  let settleStart: { resolve: () => void; reject: (e: Error) => void };
  const started = new Promise<void>((resolve, reject) => (settleStart = { resolve, reject }));
  let failCluster: (e: Error) => void = () => {};
  const failed = new Promise<never>((_, reject) => (failCluster = reject));
  failed.catch(() => {});
  let drained: { resolve: () => void; reject: (e: Error) => void } | null = null;
  let drainError: Error | null = null;

  const ready = (): number => [...tracked.values()].filter((t) => t.readyAt !== null).length;

  let stopping: Promise<void> | null = null;
  const stopAll = (signal: NodeJS.Signals, timeoutMs: number): Promise<void> => (stopping ??= stopWith(signal, timeoutMs));
  const stopWith = (signal: NodeJS.Signals, timeoutMs: number): Promise<void> => {
    phase = 'draining';
    if (restartTimer) clearTimeout(restartTimer);
    const done = new Promise<void>((resolve, reject) => (drained = { resolve, reject }));
    const kill = setTimeout(() => {
      for (const w of tracked.keys()) {
        drainError ??= new TradesealError('internal', `worker ${w.process.pid} did not finish draining within ${timeoutMs / 1000} s and was killed`);
        w.process.kill('SIGKILL');
      }
    }, timeoutMs);
    kill.unref();
    for (const w of tracked.keys()) w.process.kill(signal);
    if (tracked.size === 0) drained!.resolve();
    return done.finally(() => clearTimeout(kill));
  };

  const exited = (w: Worker, code: number | null, signal: string | null): void => {
    const t = tracked.get(w)!;
    tracked.delete(w);
    const how = describeExit(code, signal);
    if (phase === 'draining') {
      if (code !== 0 && !drainError) drainError = new TradesealError('internal', `worker ${w.process.pid} ended its drain with ${how}`);
      if (tracked.size === 0) {
        if (drainError) drained?.reject(drainError);
        else drained?.resolve();
      }
      return;
    }
    const failure = t.failure ?? new TradesealError('internal', `worker ${w.process.pid} ended (${how}) before it listened`);
    if (phase === 'starting') {
      // One worker that cannot start fails the start: the others would fail alike (same port, files, store).
      void stopAll('SIGTERM', options.drainTimeoutMs ?? 30_000)
        .catch(() => {})
        .then(() => settleStart.reject(failure));
      return;
    }
    if (t.failure && t.readyAt !== null) {
      options.warn(`worker ${w.process.pid} stopped: ${t.failure.message}; stopping`);
      void stopAll('SIGTERM', options.drainTimeoutMs ?? 30_000)
        .catch(() => {})
        .then(() => failCluster(t.failure!));
      return;
    }
    if (t.readyAt === null) {
      startFailures++;
      if (startFailures >= MAX_START_FAILURES) {
        options.warn(`worker ${w.process.pid} could not start (${failure.message}); ${MAX_START_FAILURES} replacements failed in a row: stopping`);
        void stopAll('SIGTERM', options.drainTimeoutMs ?? 30_000)
          .catch(() => {})
          .then(() => failCluster(failure));
        return;
      }
    } else {
      startFailures = 0;
      if (Date.now() - t.readyAt > STABLE_MS) crashes = 0;
    }
    crashes++;
    const delay = Math.min(restart.capMs, restart.baseMs * 2 ** (crashes - 1));
    const why = t.readyAt === null ? `could not start: ${failure.message}` : `ended unexpectedly (${how})`;
    options.warn(`worker ${w.process.pid} ${why}; starting a replacement in ${delay / 1000} s`);
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (phase === 'serving') fork();
    }, delay);
  };

  const fork = (): void => {
    const w = cluster.fork();
    tracked.set(w, { readyAt: null, failure: null });
    w.on('message', (msg: unknown) => {
      if (!isWorkerMessage(msg)) return;
      const t = tracked.get(w);
      if (!t) return;
      if (msg.t === 'tradeseal:ready') {
        t.readyAt = Date.now();
        first ??= { url: msg.url, store: msg.store, warnings: msg.warnings };
        if (phase === 'starting' && ready() === options.workers) {
          phase = 'serving';
          settleStart.resolve();
        }
      } else if (msg.t === 'tradeseal:failed') {
        t.failure = fromWire(msg.error);
      }
    });
    // A worker's last message may be read just after its exit is reported: its verdict waits a moment for it.
    w.on('exit', (code, signal) => setTimeout(() => exited(w, code, signal), 50));
  };

  for (let i = 0; i < options.workers; i++) fork();

  return started.then(() => ({
    ...first!,
    pids: () => [...tracked.keys()].map((w) => w.process.pid!).filter((pid) => pid !== undefined),
    drain: (signal: NodeJS.Signals) => stopAll(signal, options.drainTimeoutMs ?? 30_000),
    failed,
  }));
}
