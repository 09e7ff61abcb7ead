/**
 * Runs the real `tradeseal` CLI and hands back its exit code and output.
 *
 * `runCli` runs the command inside this test process, through oclif exactly as `bin/dev.js` does (the same
 * load options, tsx for the TypeScript sources, oclif's own error handler), with the run's environment in
 * `process.env`, its output captured and its exit code taken from oclif's `Exit.exit`. Commands load once per
 * test file instead of once per run, which is what made a spawned run cost seconds. Runs are queued, one at
 * a time, since the environment and the output streams are the process's own.
 *
 * `runCliProcess` spawns the compiled CLI (`node bin/run.js`, ./built-cli.ts) as an operator does: for the tests that are about the process
 * (a server that keeps running, signals, a lock held by another process, runs racing each other).
 * Asynchronous on purpose: against PGlite the test store is served from this very process, so a blocking
 * spawn would starve the socket server the child talks to.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import type { Interfaces } from '@oclif/core';
import { afterAll } from 'vitest';
import { builtCli, spawnEnv } from './built-cli.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for `--json` runs); throws with the output when it is not JSON. */
  json<T = any>(): T;
}

export type CliEnv = Record<string, string | undefined>;

/**
 * A fresh TRADESEAL_HOME for the test file, so no run touches the working tree's `.tradeseal`; removed after
 * the file's tests. Call it at the top level of a test file.
 */
export function tempHome(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradeseal-cli-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The environment of a CLI run: this process's, pointed at `databaseUrl` (when given) and `home`, plus `extra`.
 * Without colours (oclif colours JSON when it thinks a terminal listens), and with wide columns: oclif wraps
 * error messages at 80 columns when stderr is not a terminal, which would split the phrases tests look for.
 * COLUMNS is unset (a run's tables and prose are then whole, as through a pipe) unless `extra` sets it.
 */
export function cliEnv(home: string, databaseUrl?: string, extra: CliEnv = {}): CliEnv {
  const env: CliEnv = { ...process.env, TRADESEAL_HOME: home, NO_COLOR: '1', FORCE_COLOR: '0', OCLIF_COLUMNS: '400', COLUMNS: undefined, ...extra };
  if (databaseUrl !== undefined) env.DATABASE_URL = databaseUrl;
  return env;
}

function result(args: string[], code: number, stdout: string, stderr: string): CliResult {
  return {
    code,
    stdout,
    stderr,
    json() {
      try {
        return JSON.parse(stdout);
      } catch {
        throw new Error(`tradeseal ${args.join(' ')}: stdout is not JSON (exit ${code})\nstdout: ${stdout}\nstderr: ${stderr}`);
      }
    },
  };
}

/** A spawned compiled CLI (`node bin/run.js`), for tests about the process itself. */
export function runCliProcess(args: string[], env: CliEnv, timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [builtCli(), ...args],
      { cwd: REPO_ROOT, env: spawnEnv(env), maxBuffer: 16 * 1024 * 1024, timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve(result(args, code, stdout, stderr));
      },
    );
  });
}

interface Oclif {
  run: (argv: string[], options: Interfaces.LoadOptions) => Promise<unknown>;
  handle: (error: Error) => Promise<void>;
  flush: () => Promise<void>;
  Exit: { exit: (code?: number) => void };
  /** oclif's widths for wrapping, read from OCLIF_COLUMNS (or the streams) once when it loads. */
  screen: { stdtermwidth: number; errtermwidth: number };
  loadOptions: () => Interfaces.LoadOptions;
}

let oclif: Promise<Oclif> | undefined;
let queue: Promise<unknown> = Promise.resolve();

async function loadOclif(): Promise<Oclif> {
  const { register } = await import('tsx/esm/api');
  register();
  const core = await import('@oclif/core');
  const { Exit } = await import('@oclif/core/handle');
  // @ts-expect-error: a JavaScript module of bin/, shared with bin/dev.js
  const { devLoadOptions } = await import('../../bin/dev-load-options.js');
  // Not among the package's exports: required by its path, which is the module oclif itself loaded.
  const screen = createRequire(import.meta.url)(path.join(REPO_ROOT, 'node_modules/@oclif/core/lib/screen.js'));
  return { run: core.run, handle: core.handle, flush: core.flush, Exit, screen, loadOptions: devLoadOptions };
}

/** The CLI run in this process (see the module comment); same result as `runCliProcess` for every command but `serve`. */
export function runCli(args: string[], env: CliEnv, timeoutMs = 60_000): Promise<CliResult> {
  const next = queue.then(() => runInProcess(args, env, timeoutMs));
  queue = next.catch(() => undefined);
  return next;
}

async function runInProcess(args: string[], env: CliEnv, timeoutMs: number): Promise<CliResult> {
  const cli = await (oclif ??= loadOclif());
  let stdout = '';
  let stderr = '';
  let code = 0;
  const savedEnv = { ...process.env };
  const savedExit = cli.Exit.exit;
  const savedScreen = { ...cli.screen };
  const savedConsole = { log: console.log, info: console.info, warn: console.warn, error: console.error, debug: console.debug };
  const savedWrite = { out: process.stdout.write, err: process.stderr.write };
  const toOut = (...parts: unknown[]): void => void (stdout += `${format(...parts)}\n`);
  const toErr = (...parts: unknown[]): void => void (stderr += `${format(...parts)}\n`);
  const writer = (append: (s: string) => void) =>
    ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const done = typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') (done as () => void)();
      return true;
    }) as typeof process.stdout.write;

  for (const key of Object.keys(process.env)) delete process.env[key];
  for (const [key, value] of Object.entries(env)) if (value !== undefined) process.env[key] = value;
  cli.Exit.exit = (exit = 0) => void (code = exit);
  // As a spawned run computes them: OCLIF_COLUMNS, else 80 (its output is not a terminal).
  const columns = Number.parseInt(env.OCLIF_COLUMNS ?? '', 10) || 80;
  Object.assign(cli.screen, { stdtermwidth: columns, errtermwidth: columns });
  Object.assign(console, { log: toOut, info: toOut, warn: toErr, error: toErr, debug: toErr });
  process.stdout.write = writer((s) => void (stdout += s));
  process.stderr.write = writer((s) => void (stderr += s));
  let timer: NodeJS.Timeout | undefined;
  try {
    const run = (async () => {
      try {
        await cli.run(args, cli.loadOptions());
        await cli.flush();
      } catch (error) {
        await cli.handle(error as Error);
      }
    })();
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`tradeseal ${args.join(' ')}: no answer in ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`)), timeoutMs);
    });
    await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
    process.stdout.write = savedWrite.out;
    process.stderr.write = savedWrite.err;
    Object.assign(console, savedConsole);
    cli.Exit.exit = savedExit;
    Object.assign(cli.screen, savedScreen);
    for (const key of Object.keys(process.env)) delete process.env[key];
    Object.assign(process.env, savedEnv);
  }
  return result(args, code, stdout, stderr);
}

/** A one-line description of a run, for assertion messages. */
export const describeRun = (r: CliResult): string => `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
