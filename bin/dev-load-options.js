// oclif's load options for running the `tradeseal` CLI from its TypeScript sources, shared by bin/dev.js and
// the tests that run commands in their own process (test/helpers/cli.ts). tsx must be registered first.
//
// Not oclif's `execute({development: true})`: its TypeScript path mapping assumes a rootDir such as `src`; with
// this project's rootDir "." it maps every command path a second time, misses, and prints a warning with a
// stack trace per command on every run. So oclif's mapping is off, and the commands are read from ./commands
// (the sources) instead of ./dist/commands, and hooks from their sources too.
//
// The build's oclif.manifest.json (`npm run build`) describes ./dist: oclif reads a root's manifest whatever
// `ignoreManifest` says (@oclif/core 4), so the sources are loaded from a directory that stands in for the
// root, with links to ./commands, ./src and package.json and no manifest, under node_modules/.cache/tradeseal-dev/ (one per
// checkout: node_modules may be shared by several).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { settings } from '@oclif/core';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** The stand-in root for the sources of the checkout at `root`, made once (atomically: several test processes may start at once). */
function sourcesRoot(root) {
  const dir = path.join(root, 'node_modules', '.cache', 'tradeseal-dev', `sources-${createHash('sha256').update(root).digest('hex').slice(0, 16)}`);
  if (existsSync(path.join(dir, 'package.json'))) return dir;
  const tmp = `${dir}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  symlinkSync(path.join(root, 'commands'), path.join(tmp, 'commands'));
  symlinkSync(path.join(root, 'src'), path.join(tmp, 'src'));
  symlinkSync(path.join(root, 'package.json'), path.join(tmp, 'package.json'));
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another process made it first
  }
  return dir;
}

// Hooks point into dist/; here they run from their TypeScript sources.
function devHooks(hooks = {}) {
  return Object.fromEntries(Object.entries(hooks).map(([name, file]) => [name, file.replace(/^\.\/dist\//, './').replace(/\.js$/, '.ts')]));
}

/** The load options for the checkout at `root` (this one by default). */
export function devLoadOptions(root = repoRoot) {
  settings.enableAutoTranspile = false;
  const pjson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  return {
    root: sourcesRoot(root),
    ignoreManifest: true,
    pjson: { ...pjson, oclif: { ...pjson.oclif, commands: './commands', hooks: devHooks(pjson.oclif.hooks) } },
  };
}
