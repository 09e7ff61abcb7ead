/**
 * The compiled CLI (`bin/run.js`, the build in dist/), which the tests spawn wherever the process itself is the
 * point: a server, a run killed half-way, output to a pipe or a terminal. It is what an operator runs; the build
 * is the same sources through the same transpiler as the tests' (esbuild), and a start through tsx's loader
 * (`bin/dev.js`) instead cost some 0.8 s more CPU per process. dist/ is built first when it is missing or older
 * than a source (scripts/build-if-stale.js; builds of one checkout take turns), once per test process.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCli } from '../../scripts/docs/check/workspace.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RUN = path.join(REPO, 'bin', 'run.js');

let built = false;

/** The path of `bin/run.js`, with dist/ current. Throws when the build fails. */
export function builtCli(): string {
  if (!built) {
    buildCli(REPO);
    built = true;
  }
  return RUN;
}

/**
 * A spawned CLI's environment: `env` without NODE_ENV, as in an operator's shell. Under vitest's `test`, oclif
 * takes the checkout for a development one and loads every command instead of the one the manifest names.
 */
export function spawnEnv<T extends Record<string, string | undefined>>(env: T): T {
  return { ...env, NODE_ENV: undefined };
}
