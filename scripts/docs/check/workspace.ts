/**
 * Where a document's commands run (docs/testing.md, "Documented outputs"): a fresh working directory whose
 * `./.tradeseal` is the embedded store (TRADESEAL_HOME and DATABASE_URL unset, as in a new user's shell), `NO_COLOR=1`, `COLUMNS=80`, `TZ=UTC`, no
 * `CI`, and `tradeseal` on PATH meaning this tree's CLI (a shim in a temporary bin directory).
 *
 * A `published` document starts from a copy of a template home in which `tradeseal pipeline run` has published
 * the bundled history, made once per check. Copying a PGlite data directory is safe only while no process has
 * it open: the template's process has exited when the copy starts, and the template must hold no owner file
 * (`embedded.json`, which a live owner keeps), else the copy is refused.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { OWNER_FILE } from '../../../src/store/embedded-owner.js';
import { runCommand } from './shell.js';

/** Which CLI the shim runs: the compiled build (`bin/run.js`, built when stale) or the sources through tsx. */
export type CliKind = 'dist' | 'dev';

export interface Toolbox {
  /** The temporary root under which every workspace of this check lives. */
  root: string;
  /** The directory holding the `tradeseal` shim, first on every workspace's PATH. */
  bin: string;
  /** The environment every workspace starts from (without its home). */
  baseEnv: Record<string, string>;
}

export interface Workspace {
  home: string;
  cwd: string;
  env: Record<string, string>;
}

/** The inherited variables a workspace keeps; everything else (DATABASE_URL, CI, a PORT, …) is left out. */
const KEPT = ['HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'TMPDIR', 'SHELL', 'TERM'];

/** Builds `dist/` when it is missing or older than its sources (scripts/build-if-stale.js); throws when the build fails. */
export function buildCli(packageRoot: string): void {
  const r = spawnSync(process.execPath, [path.join(packageRoot, 'scripts', 'build-if-stale.js')], { cwd: packageRoot, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`npm run build failed (exit ${r.status}): the documented commands need the compiled CLI`);
}

export function makeToolbox(packageRoot: string, cli: CliKind): Toolbox {
  const root = mkdtempSync(path.join(tmpdir(), 'tradeseal-docs-'));
  const bin = path.join(root, 'bin');
  mkdirSync(bin);
  const entry = path.join(packageRoot, 'bin', cli === 'dist' ? 'run.js' : 'dev.js');
  writeFileSync(path.join(bin, 'tradeseal'), `#!/bin/sh\nexec '${process.execPath}' '${entry}' "$@"\n`);
  chmodSync(path.join(bin, 'tradeseal'), 0o755);
  const baseEnv: Record<string, string> = {};
  for (const k of KEPT) if (process.env[k] !== undefined) baseEnv[k] = process.env[k]!;
  Object.assign(baseEnv, { PATH: `${bin}:${path.dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`, NO_COLOR: '1', COLUMNS: '80', TZ: 'UTC' });
  return { root, bin, baseEnv };
}

let counter = 0;

/** A fresh workspace; from a copy of `template` (a home with the history published) when given. */
export function makeWorkspace(box: Toolbox, name: string, template: string | null): Workspace {
  const dir = path.join(box.root, `${String(++counter).padStart(2, '0')}-${name.replace(/[^A-Za-z0-9.-]+/g, '_')}`);
  // A new user's directory: the store where the CLI puts it by default (./.tradeseal, so TRADESEAL_HOME stays
  // unset, as in the reader's shell) and profiles of its own (never the profiles of whoever runs the check).
  const cwd = path.join(dir, 'work');
  const home = path.join(cwd, '.tradeseal');
  mkdirSync(cwd, { recursive: true });
  if (template) {
    if (existsSync(path.join(template, OWNER_FILE))) throw new Error(`the template store ${template} is still owned (${OWNER_FILE}): it cannot be copied safely`);
    cpSync(template, home, { recursive: true });
  } else mkdirSync(home);
  return { home, cwd, env: { ...box.baseEnv, XDG_CONFIG_HOME: path.join(dir, 'config') } };
}

/**
 * The template home: `tradeseal pipeline run` on an empty store, to completion. Returns its home and the run's
 * wall time (the `pipeline-run` timing).
 */
export async function makePublishedTemplate(box: Toolbox, deadlineMs: number): Promise<{ home: string; seconds: number }> {
  const ws = makeWorkspace(box, 'published-template', null);
  const started = performance.now();
  const r = await runCommand('tradeseal pipeline run', { cwd: ws.cwd, env: ws.env, deadlineMs, scratch: box.root });
  const seconds = (performance.now() - started) / 1000;
  if (r.timedOut) throw new Error(`the published template: tradeseal pipeline run did not finish within ${Math.round(deadlineMs / 1000)} s`);
  if (r.exitCode !== 0) throw new Error(`the published template: tradeseal pipeline run failed (exit ${r.exitCode}):\n${r.output}`);
  return { home: ws.home, seconds };
}

export function removeToolbox(box: Toolbox): void {
  rmSync(box.root, { recursive: true, force: true });
}
