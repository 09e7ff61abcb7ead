/**
 * The timings the documentation states (`<!-- timing:NAME -->103 s<!-- /timing -->`), measured by
 * `npm run docs:update`, never typed: how long a new user waits for `npm run demo` and `npm start`, a full
 * pipeline run on an empty store and `npm test`. The check only asks that each is present and not empty.
 *
 * - `demo-first`: `npm run demo` in a fresh checkout (./fresh-checkout.ts: the tree's files as a clone has them, no
 *   `dist/`, no store, the installed node_modules), as a new user runs it after `npm install`: the build, the
 *   pipeline run, the cases; `demo-second`: again in that checkout.
 * - `start-first`: `npm start` in another fresh checkout until `GET /v1/health` answers 200 (the build, the first
 *   pipeline run), then SIGTERM; `start-second`: again in that checkout.
 * - `pipeline-run`: `tradeseal pipeline run` on an empty store (the published template's run).
 * - `npm-test`: `npm test`, only with `--npm-test` (it takes minutes), last, on the rewritten documents; otherwise the marker keeps its value.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { freshCheckout } from './fresh-checkout.js';
import { groupAlive, stopGroup } from './process-group.js';
import { freePort } from './serve.js';

export const TIMINGS = ['demo-first', 'demo-second', 'start-first', 'start-second', 'pipeline-run', 'npm-test'] as const;
export type TimingName = (typeof TIMINGS)[number];

/** Whole seconds below 100 s ("58 s"), minutes and seconds from 100 s on ("1 min 43 s"). */
export function formatSeconds(seconds: number): string {
  const s = Math.round(seconds);
  return s < 100 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

interface Spawned {
  pid: number | undefined;
  exited: Promise<number | null>;
}

function spawnGroup(cmd: string, args: string[], cwd: string, env: Record<string, string>, stdout: 'ignore' | 'inherit' = 'ignore'): Spawned {
  const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', stdout, 'inherit'], detached: true });
  return { pid: child.pid, exited: new Promise((resolve, reject) => (child.once('error', reject), child.once('exit', (code) => resolve(code)))) };
}

/** Runs a command to its end in its own process group; its wall time in seconds. */
async function timeRun(label: string, cmd: string, args: string[], cwd: string, env: Record<string, string>, deadlineMs: number, stdout: 'ignore' | 'inherit' = 'ignore'): Promise<number> {
  const started = performance.now();
  const p = spawnGroup(cmd, args, cwd, env, stdout);
  const timer = setTimeout(() => void stopGroup(p.pid, 5_000), deadlineMs);
  const code = await p.exited.finally(() => clearTimeout(timer));
  await stopGroup(p.pid, 5_000);
  if (code !== 0) throw new Error(`${label} failed (exit ${code}) or did not finish within ${Math.round(deadlineMs / 1000)} s`);
  return (performance.now() - started) / 1000;
}

/** `npm start` until its health route answers 200; then SIGTERM to it and all it started. */
async function timeStart(cwd: string, env: Record<string, string>, deadlineMs: number): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const p = spawnGroup('npm', ['start'], cwd, { ...env, PORT: String(port) });
  let exited = false;
  void p.exited.then(() => (exited = true), () => (exited = true));
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/v1/health`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.status === 200, () => false);
      if (ok) return (performance.now() - started) / 1000;
      if (exited || !groupAlive(p.pid)) throw new Error('npm start exited before it answered GET /v1/health');
      if (performance.now() - started > deadlineMs) throw new Error(`npm start did not answer GET /v1/health within ${Math.round(deadlineMs / 1000)} s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await stopGroup(p.pid, 30_000);
  }
}

/**
 * Measures the timings other than `pipeline-run` (which the published template measures), each pair in a fresh
 * checkout of its own: the first run pays for the build, as a new user's does. The tree's own `dist/` is untouched.
 */
export async function measureTimings(opts: { packageRoot: string; scratch: string; env: Record<string, string>; log: (line: string) => void }): Promise<Partial<Record<TimingName, string>>> {
  const { packageRoot, scratch, env, log } = opts;
  const out: Partial<Record<TimingName, string>> = {};
  const checkout = (name: string): string => freshCheckout(packageRoot, path.join(scratch, name));
  const demoCheckout = checkout('timing-demo');
  for (const name of ['demo-first', 'demo-second'] as const) {
    log(`timing ${name}: npm run demo in a fresh checkout …`);
    out[name] = formatSeconds(await timeRun(`npm run demo (${name})`, 'npm', ['run', 'demo'], demoCheckout, withoutHome(env), 900_000));
  }
  const startCheckout = checkout('timing-start');
  for (const name of ['start-first', 'start-second'] as const) {
    log(`timing ${name}: npm start in a fresh checkout …`);
    out[name] = formatSeconds(await timeStart(startCheckout, withoutHome(env), 900_000));
  }
  return out;
}

/** The store is the checkout's own `./.tradeseal`, as for a new user. */
function withoutHome(env: Record<string, string>): Record<string, string> {
  const { TRADESEAL_HOME: _home, DATABASE_URL: _url, ...rest } = env;
  return rest;
}

/**
 * `npm test`, timed: run last by `docs:update -- --npm-test`, after the documents were rewritten, so the suite
 * (which checks the documented outputs) runs on the documents as they will be committed. Its report is shown;
 * a failing suite fails the update.
 */
export async function measureNpmTest(opts: { packageRoot: string; env: Record<string, string>; log: (line: string) => void }): Promise<string> {
  opts.log('timing npm-test: npm test …');
  const { NO_COLOR: _n, COLUMNS: _c, TZ: _t, ...testEnv } = opts.env;
  const env = { ...testEnv, ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}) };
  return formatSeconds(await timeRun('npm test', 'npm', ['test'], opts.packageRoot, env, 3_600_000, 'inherit'));
}
