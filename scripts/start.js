#!/usr/bin/env node
// `npm start`: compiles the TypeScript build when it is missing or older than any source file, then runs
// `tradeseal serve --pipeline-if-empty`: opens the store, applies pending migrations, runs the pipeline on the
// bundled data when nothing is published yet, and listens.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist', '.build-stamp');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (/\.(ts|tsx|sql|json)$/.test(entry.name)) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

const sources = ['src', 'commands', 'pipeline'].map((d) => path.join(root, d)).filter(existsSync);
const sourceTime = Math.max(...sources.map(newestMtime), statSync(path.join(root, 'tsconfig.json')).mtimeMs);
if (!existsSync(stamp) || statSync(stamp).mtimeMs < sourceTime) {
  console.error('tradeseal: building (npm run build)…');
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// Run the CLI in this process, so SIGINT/SIGTERM reach the server directly and it drains cleanly.
const { execute } = await import('@oclif/core');
await execute({ args: ['serve', '--pipeline-if-empty', ...process.argv.slice(2)], dir: pathToFileURL(path.join(root, 'bin', 'run.js')).href });
