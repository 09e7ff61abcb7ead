/**
 * Runs one documented command in bash, as a reader types it in a terminal, and records what it prints and the
 * variables it exports (`export X=…` carries to the document's later commands, as in one shell session).
 *
 * Each command is its own `bash -c` in its own process group: a command that outlives its deadline is killed
 * with everything it started, and nothing is left behind. What it exported is read back from `env -0`, written
 * to a file after the command, so its own output is not touched.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { killGroup } from './process-group.js';

export interface CommandResult {
  /** stdout, then stderr, ANSI sequences removed. */
  output: string;
  exitCode: number | null;
  /** True when the deadline passed and the command was killed. */
  timedOut: boolean;
  /** The variables the command set or changed (null: removed), relative to the environment it was given. */
  exported: Record<string, string | null>;
}

const ENV_FILE_VAR = 'DOCS_CHECK_ENV_FILE';

/** Control sequences a terminal would interpret; the documents show text. */
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007/g;

function parseEnv0(raw: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of raw.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

export async function runCommand(command: string, opts: { cwd: string; env: Record<string, string>; deadlineMs: number; scratch: string }): Promise<CommandResult> {
  const envFile = path.join(opts.scratch, `env-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  // The command's own exit status is kept; the environment is written whatever it was.
  const script = `${command}\n__docs_check_status=$?\nenv -0 > "$${ENV_FILE_VAR}"\nexit $__docs_check_status\n`;
  const child = spawn('bash', ['-c', script], {
    cwd: opts.cwd,
    env: { ...opts.env, [ENV_FILE_VAR]: envFile },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid, 'SIGKILL');
  }, opts.deadlineMs);
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  }).finally(() => clearTimeout(timer));
  // Whatever the command left running in the background goes with it (a server is the checker's to start).
  killGroup(child.pid, 'SIGKILL');

  const exported: Record<string, string | null> = {};
  let after: Record<string, string> | null = null;
  try {
    after = parseEnv0(readFileSync(envFile, 'utf8'));
  } catch {
    // The command ended the shell itself (`exit`, a kill): it exported nothing we can see.
  }
  rmSync(envFile, { force: true });
  if (after) {
    for (const [k, v] of Object.entries(after)) if (k !== ENV_FILE_VAR && k !== '_' && k !== 'SHLVL' && k !== 'PWD' && k !== 'OLDPWD' && opts.env[k] !== v) exported[k] = v;
    for (const k of Object.keys(opts.env)) if (!(k in after)) exported[k] = null;
  }
  const joined = stdout + (stderr && stdout && !stdout.endsWith('\n') ? '\n' : '') + stderr;
  return { output: joined.replace(ANSI, ''), exitCode, timedOut, exported };
}
