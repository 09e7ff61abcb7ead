#!/usr/bin/env node
// Builds `dist/` (`npm run build`: scripts/build.js) only when it is missing or older than a source file, so
// `npm start` and `npm run demo` pay for a build once after a checkout or a change, not on every run. Run as
// a script (`node scripts/build-if-stale.js`) or imported (`buildIfStale()`); exits non-zero when the build fails.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_SOURCES } from './build-sources.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function newestMtime(dir) {
  if (!statSync(dir).isDirectory()) return statSync(dir).mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (/\.(ts|tsx|sql|json)$/.test(entry.name)) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/** True when `dir`'s dist/ is missing or older than any source of its build. */
export function buildIsStale(dir = root) {
  const stamp = path.join(dir, 'dist', '.build-stamp');
  if (!existsSync(stamp)) return true;
  const sources = [...BUILD_SOURCES.dirs, ...BUILD_SOURCES.files].map((d) => path.join(dir, d)).filter(existsSync);
  const configs = ['tsconfig.json']
    .map((f) => path.join(dir, f))
    .filter(existsSync)
    .map((f) => statSync(f).mtimeMs);
  return statSync(stamp).mtimeMs < Math.max(...sources.map(newestMtime), ...configs);
}

/** Builds when stale, saying what it does; returns the build's exit status (0 when nothing had to be built). */
export function buildIfStale() {
  if (!buildIsStale()) return 0;
  console.error('tradeseal: building dist/ (npm run build), once after a checkout or a change of the sources:');
  return spawnSync(process.execPath, [path.join(root, 'scripts', 'build.js'), '--if-stale'], { cwd: root, stdio: 'inherit' }).status ?? 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exit(buildIfStale());
