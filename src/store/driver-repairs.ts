/**
 * The store driver runs only with its repairs. postgres.js 3.4.9 ends the process or poisons its pool when the
 * store goes away at the wrong moment; patches/postgres+3.4.9.patch repairs it (each repair, its upstream issue and
 * its test are listed in the patch's header), applied by patch-package at install. An installation made without
 * it (`npm install --ignore-scripts`, a driver hoisted from elsewhere, a copy of node_modules taken before) would
 * run, and fail only on the day the store restarts under load; so the first store opened checks that every
 * repaired file of the driver the process loads begins with the repairs' mark, and refuses
 * (`store_driver_unrepaired`, naming the files) when one does not.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { TradesealError } from '../core/errors.js';

/** The first line of each file the patch repairs. */
export const DRIVER_REPAIR_MARK = '/* tradeseal: driver repairs */';

/** The files the patch repairs, in the ES module build (what `import 'postgres'` loads) and the CommonJS one. */
export const REPAIRED_FILES = ['src/connection.js', 'src/index.js', 'src/queue.js', 'cjs/src/connection.js', 'cjs/src/index.js', 'cjs/src/queue.js'];

/** The installed driver's directory: its CommonJS entry (cjs/src/index.js) resolved as this module sees it. */
export function driverDirectory(): string {
  return path.resolve(path.dirname(createRequire(import.meta.url).resolve('postgres')), '..', '..');
}

/** The repaired files of the driver in `dir` that lack the repairs' mark (or cannot be read). */
export function unrepairedFiles(dir: string): string[] {
  return REPAIRED_FILES.filter((file) => {
    try {
      return !readFileSync(path.join(dir, file), 'utf8').startsWith(DRIVER_REPAIR_MARK);
    } catch {
      return true;
    }
  });
}

/** The driver directories found repaired: each is read once per process. */
const repaired = new Set<string>();

/** Throws `store_driver_unrepaired` unless the driver in `dir` carries its repairs. */
export function assertDriverRepaired(dir = driverDirectory()): void {
  if (repaired.has(dir)) return;
  const missing = unrepairedFiles(dir);
  if (missing.length > 0) {
    throw new TradesealError(
      'store_driver_unrepaired',
      `the store driver in ${dir} is installed without its repairs (patches/postgres+3.4.9.patch): ${missing.join(', ')} ${missing.length === 1 ? 'lacks' : 'lack'} them`,
      {
        hint: 'run `npx patch-package` in the installation (npm install runs it as postinstall; --ignore-scripts skips it)',
      },
    );
  }
  repaired.add(dir);
}
