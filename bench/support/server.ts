/**
 * The server under benchmark (bench/engine-server.ts: the real app with both services, plus the floor routes
 * `GET /bench/noop` and `POST /bench/floor`) in a child process of its own, and the IPC to drive it: ready,
 * counts of what it answered, CPU profiles, drain and stop. Shared by bench/engine.ts and bench/signals.ts.
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildMessage, ParentMessage, ServerCounts } from '../engine-server.js';

const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const REPO = path.dirname(BENCH_DIR);

const log = (line: string): void => {
  process.stderr.write(`[bench] ${line}\n`);
};

export interface Server {
  child: ChildProcess;
  url: string;
  ownerToken: string;
  /** The processes that serve: the child itself, or its node:cluster workers. */
  workerPids: number[];
  request(m: ParentMessage, reply: ChildMessage['type']): Promise<ChildMessage>;
  counts(): Promise<ServerCounts>;
  /** Waits until the server has answered every request it received (a run's last ones outlive its connections). */
  drain(): Promise<ServerCounts>;
  stop(): Promise<void>;
}

export async function startServer(env: Record<string, string>): Promise<Server> {
  // The compiled build (dist/, built first when older than a source), as `tradeseal serve` runs it: the same
  // code without tsx's loader, which holds every transpiled source and its source map (about 50 MB resident).
  const built = spawnSync(process.execPath, [path.join(REPO, 'scripts/build-if-stale.js')], { cwd: REPO, stdio: 'inherit' });
  if (built.status !== 0) throw new Error(`building dist/ for the benchmark's server failed (exit ${built.status ?? built.signal})`);
  // A separate Node process (own event loop, own core when the OS gives it one).
  const child = fork(path.join(REPO, 'dist/bench/engine-server.js'), [], {
    cwd: REPO,
    execArgv: [],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const killNow = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killNow);

  const waitFor = (type: ChildMessage['type'], timeoutMs: number): Promise<ChildMessage> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`the engine server did not answer ${type} within ${timeoutMs} ms`)), timeoutMs);
      const onMessage = (m: ChildMessage): void => {
        if (m.type === type) finish(null, m);
        else if (m.type === 'failed') finish(new Error(`the engine server failed: ${m.message}`));
      };
      const onExit = (code: number | null): void => finish(new Error(`the engine server exited (code ${code}) before ${type}`));
      function finish(error: Error | null, m?: ChildMessage): void {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (error) reject(error);
        else resolve(m as ChildMessage);
      }
      child.on('message', onMessage);
      child.on('exit', onExit);
    });

  const ready = await waitFor('ready', 120_000);
  if (ready.type !== 'ready') throw new Error('unexpected message');
  let stopped: Promise<void> | undefined;
  const request = async (m: ParentMessage, reply: ChildMessage['type']): Promise<ChildMessage> => {
    const answer = waitFor(reply, 60_000);
    child.send(m);
    return answer;
  };
  const counts = async (): Promise<ServerCounts> => {
    const m = await request({ type: 'counts' }, 'counts');
    if (m.type !== 'counts') throw new Error('unexpected message');
    return m.counts;
  };
  return {
    child,
    url: ready.url,
    ownerToken: ready.ownerToken,
    workerPids: ready.workerPids,
    request,
    counts,
    drain: async () => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const c = await counts();
        if (c.inFlight <= 0) return c;
        if (Date.now() > deadline) {
          log(`warning: the server still has ${c.inFlight} request(s) in flight after 30 s; going on`);
          return c;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          process.removeListener('exit', killNow);
          resolve();
        });
        if (child.connected) child.send({ type: 'stop' } satisfies ParentMessage);
        else child.kill('SIGTERM');
      })),
  };
}
