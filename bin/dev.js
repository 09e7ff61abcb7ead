#!/usr/bin/env node
// The `tradeseal` CLI, running the TypeScript sources directly through tsx.
//
// Not oclif's `execute({development: true})`: its TypeScript path mapping assumes a rootDir such as `src`; with
// this project's rootDir "." it maps every command path a second time, misses, and prints a warning with a
// stack trace per command on every run. So tsx is registered here, oclif's mapping is off, and the commands
// are read from ./commands (the sources) instead of ./dist/commands, and hooks from their sources too. A stale oclif.manifest.json is ignored.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execute, settings } from '@oclif/core';
import { register } from 'tsx/esm/api';

register();
settings.enableAutoTranspile = false;
const root = fileURLToPath(new URL('..', import.meta.url));
const pjson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// Hooks point into dist/; here they run from their TypeScript sources.
function devHooks(hooks = {}) {
  return Object.fromEntries(Object.entries(hooks).map(([name, file]) => [name, file.replace(/^\.\/dist\//, './').replace(/\.js$/, '.ts')]));
}

await execute({
  loadOptions: { root, ignoreManifest: true, pjson: { ...pjson, oclif: { ...pjson.oclif, commands: './commands', hooks: devHooks(pjson.oclif.hooks) } } },
});
