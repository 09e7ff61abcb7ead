/**
 * Runs the real `tradeseal` CLI (`node bin/dev.js`, the TypeScript sources) as a child process, the way an
 * operator does, and hands back its exit code and output.
 *
 * Asynchronous on purpose: against PGlite the test store is served from this very process, so a blocking
 * spawn would starve the socket server the child talks to.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DEV = path.join(REPO_ROOT, 'bin', 'dev.js');

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
 */
export function cliEnv(home: string, databaseUrl?: string, extra: CliEnv = {}): CliEnv {
  const env: CliEnv = { ...process.env, TRADESEAL_HOME: home, NO_COLOR: '1', FORCE_COLOR: '0', OCLIF_COLUMNS: '400', ...extra };
  if (databaseUrl !== undefined) env.DATABASE_URL = databaseUrl;
  return env;
}

export function runCli(args: string[], env: CliEnv, timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [DEV, ...args], { cwd: REPO_ROOT, env, maxBuffer: 16 * 1024 * 1024, timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({
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
      });
    });
  });
}

/** A one-line description of a run, for assertion messages. */
export const describeRun = (r: CliResult): string => `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
