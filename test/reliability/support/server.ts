/**
 * A tradeseal server as a child process: `tradeseal serve` as an operator runs it (the compiled CLI:
 * test/helpers/built-cli.ts) on a free port, with its stdout and stderr written to a log file that outlives it
 * (the secret-leak test reads the logs; a SIGKILL loses nothing already written). The environment is the
 * server's settings.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtCli } from '../../helpers/built-cli.js';
import { sharedTempDir } from './temp.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const READY = /tradeseal serving .* on (https?:\/\/\S+) \(store: /;

export interface ServerProcess {
  url: string;
  pid: number;
  /** The file the server's stdout and stderr go to. */
  logFile: string;
  log(): string;
  /** Resolves with the exit code or signal once the process has ended. */
  exited: Promise<number | string>;
  /** SIGKILL: the process ends at once, mid-request. */
  kill(): Promise<void>;
  /** SIGTERM: the server drains and closes, as an operator's stop does. */
  stop(): Promise<void>;
}

/** `nodeArgs`: flags of node itself, before the script (a benchmark's `--cpu-prof`, which NODE_OPTIONS refuses). */
export async function startServerProcess(env: Record<string, string>, name = 'server', nodeArgs: readonly string[] = []): Promise<ServerProcess> {
  const cli = builtCli();
  const dir = await sharedTempDir('logs');
  const logFile = path.join(dir, `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.log`);
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [...nodeArgs, cli, 'serve', '--host', '127.0.0.1', '--port', '0'], {
      cwd: REPO,
      // Only what the server is given: the test process's own settings must not leak into it. One process per
      // server unless the test asks for workers: a SIGKILL here is the death of the server, not of a primary
      // whose workers drain (test/http/cluster.test.ts covers `serve --workers N`).
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), TRADESEAL_HOME: path.join(dir, 'home'), SERVE_WORKERS: '1', ...env },
      stdio: ['ignore', fd, fd],
    });
  } finally {
    closeSync(fd);
  }
  const pid = child.pid as number;
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code ?? -1)));
  const killNow = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killNow);
  void exited.then(() => process.removeListener('exit', killNow));
  const log = (): string => readFileSync(logFile, 'utf8');

  let done = false;
  void exited.then(() => (done = true));
  const deadline = Date.now() + 120_000;
  let url: string | undefined;
  while (!url) {
    url = READY.exec(log())?.[1];
    if (url) break;
    if (done) throw new Error(`the server exited before it listened:\n${log().slice(-3000)}`);
    if (Date.now() > deadline) {
      killNow();
      throw new Error(`the server did not listen within 120 s:\n${log().slice(-3000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const end = async (signal: NodeJS.Signals): Promise<void> => {
    if (!done) child.kill(signal);
    const timer = setTimeout(killNow, 20_000);
    await exited;
    clearTimeout(timer);
  };
  return { url, pid, logFile, log, exited, kill: () => end('SIGKILL'), stop: () => end('SIGTERM') };
}
