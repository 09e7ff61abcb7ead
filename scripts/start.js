#!/usr/bin/env node
// `npm start`: compiles the TypeScript build when it is missing or older than any source file, then runs
// `tradeseal serve --pipeline-if-empty --fetch`: opens the store, applies pending migrations, fetches every series
// and publishes what is new when the sources are configured (else says in one line what to set, and runs the
// pipeline on the bundled data when nothing is published yet), and listens.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildIfStale } from './build-if-stale.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = buildIfStale();
if (built !== 0) process.exit(built);

// Run the CLI in this process, so SIGINT/SIGTERM reach the server directly and it drains cleanly.
const { execute } = await import('@oclif/core');
await execute({ args: ['serve', '--pipeline-if-empty', '--fetch', ...process.argv.slice(2)], dir: pathToFileURL(path.join(root, 'bin', 'run.js')).href });
