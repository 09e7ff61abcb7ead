/**
 * The embedded store's image: a PostgreSQL data directory as PGlite's initdb leaves it, made once by `npm run build`
 * (dist/store-image/pglite-<version>/) so that a new store is a copy of it rather than an initdb of its own (some
 * 3.5 s of CPU in WebAssembly against 0.15 s for the copy). An image holds no data and no secret: the catalogues of
 * an empty cluster, the same in every store made by this PGlite. Without an image of the installed PGlite's
 * version (a checkout not built, PGlite upgraded since the build), when the copy fails, or when PGlite cannot open
 * the copy (an image cut short by a `dist/` removed meanwhile), a new store is made by initdb as before; either way
 * the migrations then run on it as on any store.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { packageRoot } from '../core/package-root.js';

/** The installed PGlite's version: an image is used only by the PGlite that made it. */
export function pgliteVersion(): string {
  let dir = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@electric-sql/pglite' && pkg.version) return pkg.version;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('the installed @electric-sql/pglite has no package.json');
    dir = parent;
  }
}

/** Where the build keeps the image of the installed PGlite. */
export const storeImageDir = (root: string = packageRoot()): string => path.join(root, 'dist', 'store-image', `pglite-${pgliteVersion()}`);

/** Makes the image in `dir` (replacing any): PGlite's initdb in a directory beside it, moved into place once closed. */
export async function makeStoreImage(dir: string): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  const parent = path.dirname(dir);
  mkdirSync(parent, { recursive: true });
  const building = mkdtempSync(path.join(parent, `${path.basename(dir)}.building-`));
  try {
    const db = await PGlite.create({ dataDir: building });
    await db.close();
    renameSync(building, dir);
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

/**
 * Makes `dataDir` (absent or empty) a copy of the image, if there is one: copied beside it, then renamed into place,
 * so a copy cut short leaves nothing in `dataDir`. True when it did; false leaves `dataDir` as it was, for initdb.
 * Only the store's owner calls it (embedded-owner.ts), so a copy beside it from an earlier life (a process killed
 * while copying) is no one's, and is removed first.
 */
export function copyStoreImage(dataDir: string, image: string | null): boolean {
  const parent = path.dirname(dataDir);
  const prefix = `${path.basename(dataDir)}.image-`;
  if (existsSync(parent)) {
    for (const left of readdirSync(parent).filter((f) => f.startsWith(prefix))) rmSync(path.join(parent, left), { recursive: true, force: true });
  }
  if (image === null || !existsSync(path.join(image, 'PG_VERSION'))) return false;
  let copy: string | undefined;
  try {
    mkdirSync(parent, { recursive: true });
    copy = mkdtempSync(path.join(parent, prefix));
    cpSync(image, copy, { recursive: true });
    // rename(2) replaces an empty directory; a non-empty one (someone's files) refuses it, and initdb decides.
    renameSync(copy, dataDir);
    return true;
  } catch {
    return false;
  } finally {
    if (copy !== undefined) rmSync(copy, { recursive: true, force: true });
  }
}
