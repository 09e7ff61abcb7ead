// oclif's load options for running the `tradeseal` CLI from its TypeScript sources, shared by bin/dev.js and
// the tests that run commands in their own process (test/helpers/cli.ts). tsx must be registered first.
//
// Not oclif's `execute({development: true})`: its TypeScript path mapping assumes a rootDir such as `src`; with
// this project's rootDir "." it maps every command path a second time, misses, and prints a warning with a
// stack trace per command on every run. So oclif's mapping is off, and the commands are read from ./commands
// (the sources) instead of ./dist/commands, and hooks from their sources too. A stale oclif.manifest.json is
// ignored.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { settings } from '@oclif/core';

const root = fileURLToPath(new URL('..', import.meta.url));

// Hooks point into dist/; here they run from their TypeScript sources.
function devHooks(hooks = {}) {
  return Object.fromEntries(Object.entries(hooks).map(([name, file]) => [name, file.replace(/^\.\/dist\//, './').replace(/\.js$/, '.ts')]));
}

export function devLoadOptions() {
  settings.enableAutoTranspile = false;
  const pjson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return { root, ignoreManifest: true, pjson: { ...pjson, oclif: { ...pjson.oclif, commands: './commands', hooks: devHooks(pjson.oclif.hooks) } } };
}
