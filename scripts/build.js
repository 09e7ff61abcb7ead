#!/usr/bin/env node
// `npm run build`: the compiled CLI and services in dist/, in two or three steps, each named as it starts and timed as it
// ends (on a terminal a line that counts the seconds while it runs), so a first `npm start` never sits silent:
// 1. compiling: esbuild transpiles each TypeScript file of src/, commands/ and pipeline/ (and the two benchmark
//    entry points that measure the compiled code) to dist/, file for file, ESM for Node 20, with source maps. It
//    does not type-check: that is `npm run typecheck`, which `npm test` runs; the tests run these same sources
//    through the same transpiler (tsx, vitest), so the build runs what was tested.
// 2. the command manifest: `oclif manifest` writes oclif.manifest.json, so the CLI loads only the command it runs.
// 3. the embedded store's image (src/store/embedded-image.ts), when dist/ has none for the installed PGlite: an
//    empty cluster from PGlite's initdb, which each new store then copies instead of running initdb itself.
// Then dist/.build-stamp, which scripts/build-if-stale.js compares with the sources.
// Builds of one checkout take turns (./build-lock.js): two test files, or `npm start` twice, never write dist/ at
// once. A process running from dist/ meanwhile may see it half-written (as with tsc), and outputs of deleted
// sources stay until dist/ is removed.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build as esbuild } from 'esbuild';
import { withBuildLock } from './build-lock.js';
import { buildIsStale } from './build-if-stale.js';
import { BUILD_SOURCES } from './build-sources.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function sourcesOf(dir) {
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !/\.d\.ts$/.test(e.name) && !/\.test\.tsx?$/.test(e.name))
    .map((e) => path.relative(root, path.join(e.parentPath ?? e.path, e.name)));
}

/** Runs `fn`, saying `what` on stderr as it starts and how long it took as it ends; a terminal sees the seconds run. */
async function step(what, fn) {
  const t0 = performance.now();
  const seconds = () => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
  const live = process.stderr.isTTY === true;
  process.stderr.write(live ? `  ${what}…` : `  ${what}…\n`);
  const tick = live ? setInterval(() => process.stderr.write(`\r  ${what}… ${seconds()}`), 500) : undefined;
  try {
    const result = await fn();
    process.stderr.write(live ? `\r  ${what}: ${seconds()}\x1b[K\n` : `  ${what}: ${seconds()}\n`);
    return result;
  } catch (error) {
    if (live) process.stderr.write('\n');
    throw error;
  } finally {
    clearInterval(tick);
  }
}

function run(command, args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(command)} exited ${code}: ${err.trim()}`))));
  });
}

export async function build() {
  const t0 = performance.now();
  const started = Date.now();
  await step('compiling the TypeScript sources to dist/ (esbuild)', async () => {
    const entryPoints = [...BUILD_SOURCES.dirs.flatMap(sourcesOf), ...BUILD_SOURCES.files];
    await esbuild({
      entryPoints,
      outdir: path.join(root, 'dist'),
      outbase: root,
      absWorkingDir: root,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      sourcemap: true,
      jsx: 'automatic',
      tsconfig: path.join(root, 'tsconfig.json'),
      logLevel: 'error',
    });
    return entryPoints.length;
  });
  // NODE_ENV=production: in any other (a test run's `test`), oclif takes the checkout for a development one and
  // records the commands' TypeScript sources, which the compiled CLI cannot import.
  await step('writing the command manifest (oclif manifest)', () =>
    run(path.join(root, 'node_modules', '.bin', 'oclif'), ['manifest'], { OCLIF_SKIP_NEW_VERSION_CHECK: 'true', NODE_ENV: 'production' }),
  );
  // dist/ now holds the compiled image maker (src/store/embedded-image.ts); an image of this PGlite made before is kept.
  const image = await import(pathToFileURL(path.join(root, 'dist', 'src', 'store', 'embedded-image.js')).href);
  const imageDir = image.storeImageDir(root);
  if (!existsSync(path.join(imageDir, 'PG_VERSION'))) {
    // Stores work without it (each then runs initdb): a failure here is said, and the build goes on.
    await step("making the embedded store's image (PGlite's initdb, once: each new store is a copy)", () => image.makeStoreImage(imageDir)).catch((error) =>
      process.stderr.write(`  no image (${error.message}): each new embedded store runs PGlite's initdb\n`),
    );
  }
  // Stamped with the build's start: a source saved while it ran is newer, so the next start builds again.
  const stamp = path.join(root, 'dist', '.build-stamp');
  writeFileSync(stamp, new Date().toISOString());
  utimesSync(stamp, new Date(started), new Date(started));
  process.stderr.write(`  built in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
}

// `--if-stale` (scripts/build-if-stale.js): only when dist/ is still older than a source once the lock is held,
// since the build that held it before may have just made it current.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes('--if-stale');
  try {
    await withBuildLock(root, async () => {
      if (!ifStale || buildIsStale(root)) await build();
    });
  } catch (error) {
    process.stderr.write(`build failed: ${error.message}\n`);
    process.exit(1);
  }
}
