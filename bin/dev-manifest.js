// A command manifest for running the CLI from its sources (bin/dev.js), kept while the sources are unchanged.
//
// Without a manifest oclif imports every command to learn their ids and flags before it runs one: from the
// TypeScript sources that costs 3-4 s of CPU per start, which every `tradeseal serve` a developer or a test
// starts (and every worker of `serve --workers N`) pays. The built CLI (bin/run.js) has oclif's own manifest;
// this is its equivalent for the sources: the first start after a change of the sources loads every command as
// before and writes the manifest oclif made; later starts load the one command they run.
//
// The manifest is kept under node_modules/.cache/tradeseal-dev/<fingerprint>/, a directory that stands in for
// the package root (oclif reads a manifest only from the root): the manifest, a copy of package.json, and links
// to ./commands and ./src (the hooks). The fingerprint covers the path, size and modification time of every
// file of ./commands, ./src and ./pipeline and of package.json, so an edited, added or removed file (a flag
// defined in a shared module too) makes a new one. A manifest that cannot be written only costs the next start
// its time; a stale one is never used.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Config } from '@oclif/core';

const root = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = ['commands', 'src', 'pipeline', 'package.json'];
const CACHE = path.join(root, 'node_modules', '.cache', 'tradeseal-dev');
/** Manifests of other fingerprints older than this are removed (a run in progress may still be using a newer one). */
const KEEP_MS = 24 * 3600 * 1000;

function fingerprint() {
  const hash = createHash('sha256');
  const walk = (p) => {
    const st = statSync(p);
    if (st.isDirectory()) for (const name of readdirSync(p).sort()) walk(path.join(p, name));
    else hash.update(`${path.relative(root, p)}\0${st.size}\0${st.mtimeMs}\n`);
  };
  for (const s of SOURCES) walk(path.join(root, s));
  return hash.digest('hex').slice(0, 20);
}

/** Writes the manifest `config` made into `dir`, atomically (another start may be writing the same one). */
function keep(dir, config) {
  const plugin = config.plugins.get(config.pjson.name);
  if (!plugin?.manifest?.commands) return;
  mkdirSync(CACHE, { recursive: true });
  const tmp = `${dir}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  symlinkSync(path.join(root, 'commands'), path.join(tmp, 'commands'));
  symlinkSync(path.join(root, 'src'), path.join(tmp, 'src'));
  writeFileSync(path.join(tmp, 'package.json'), JSON.stringify(config.pjson));
  writeFileSync(path.join(tmp, 'oclif.manifest.json'), JSON.stringify(plugin.manifest));
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true });
  }
  const now = Date.now();
  for (const name of readdirSync(CACHE)) {
    // The stand-in roots of ./dev-load-options.js (`sources-*`) live here too and stay: a checkout has one, in use.
    if (name.startsWith('sources-')) continue;
    const other = path.join(CACHE, name);
    if (other !== dir && now - statSync(other).mtimeMs > KEEP_MS) rmSync(other, { recursive: true, force: true });
  }
}

/**
 * oclif's load options for the sources (`options`, from dev-load-options.js) with the kept manifest when the
 * sources are unchanged; else the loaded configuration, after keeping its manifest for the next start.
 */
export async function withDevManifest(options) {
  let dir;
  try {
    dir = path.join(CACHE, fingerprint());
    if (existsSync(path.join(dir, 'oclif.manifest.json'))) return { ...options, root: dir, ignoreManifest: false };
  } catch {
    return options;
  }
  const config = await Config.load(options);
  try {
    keep(dir, config);
  } catch {
    // Only the next start's time is lost.
  }
  return config;
}
