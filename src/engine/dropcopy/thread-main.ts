/**
 * The FIX drop-copy session's thread: started by thread.ts, it runs `startDropCopyRunner` on an event loop of
 * its own and a pool of its own, and reports to the server's thread by message (thread-protocol.ts): its log
 * records, its metrics (metrics.ts) and whether it holds the session. On `stop` it stops the runner (logout,
 * last commit, lock given up), closes its pool and ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { connect } from '../../store/driver.js';
import { relayMetrics } from './metrics.js';
import { LOCK_CHECK_MS, startDropCopyRunner } from './runner.js';
import { DROPCOPY_APPLICATION_NAME, toWire, type FromThread, type LogLevel, type ThreadData, type ToThread } from './thread-protocol.js';

const port = parentPort;
if (port === null) throw new Error('thread-main.ts runs as a worker thread (see thread.ts)');
const data = workerData as ThreadData;
const post = (message: FromThread): void => port.postMessage(message);

const logAt =
  (level: LogLevel) =>
  (obj: unknown, msg?: string): void => {
    if (typeof obj === 'string' && msg === undefined) post({ type: 'log', level, obj: undefined, msg: obj });
    else post({ type: 'log', level, obj: toWire(obj), msg });
  };
const log = { info: (msg: string) => logAt('info')(msg), warn: logAt('warn'), error: logAt('error') };
const metrics = relayMetrics((ops) => post({ type: 'metrics', ops }));

// The lock connection, the session row's writes and the audit of session events: three at most at once. Named
// apart in pg_stat_activity, so an operator (and bench/dropcopy.ts) can tell the session's connections.
const sql = connect(data.url, {
  max: 4,
  applicationName: DROPCOPY_APPLICATION_NAME,
  connectTimeoutMs: data.config.storeConnectTimeoutMs,
  statementTimeoutMs: data.config.storeStatementTimeoutMs,
});

let reported = '';
const report = (): void => {
  const address = runner.address;
  const now = { holding: runner.holding, address: address ? { address: address.address, family: address.family, port: address.port } : null };
  const key = JSON.stringify(now);
  if (key === reported) return;
  reported = key;
  post({ type: 'holding', ...now });
};

const runner = startDropCopyRunner({
  sql,
  config: data.config,
  log,
  metrics,
  ...(data.retryMs === null ? {} : { retryMs: data.retryMs }),
  onState: () => setImmediate(report),
});
// A session lost (its connection gone, another process fenced it) changes no state by itself: looked at each second.
const watch = setInterval(report, LOCK_CHECK_MS);

port.on('message', (message: ToThread) => {
  if (message.type !== 'stop') return;
  clearInterval(watch);
  void (async () => {
    try {
      await runner.stop();
    } catch (err) {
      log.error({ err }, 'FIX drop copy: stopping the session failed');
    }
    metrics.flush();
    await sql.end({ timeout: 5 }).catch(() => {});
    report();
    post({ type: 'stopped' });
    port.close();
  })();
});
