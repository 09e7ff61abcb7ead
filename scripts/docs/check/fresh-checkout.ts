/**
 * A fresh checkout of this tree for the first-run timings: the files a clone would have (those git tracks, and new
 * ones it does not ignore, so an uncommitted change is measured too), without `dist/`, a store, caches or anything
 * else ignored, and with the tree's installed `node_modules` linked in (the timings are "after `npm install`").
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';

export function freshCheckout(packageRoot: string, dir: string): string {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: packageRoot, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files failed in ${packageRoot}: ${listed.stderr.trim()}`);
  rmSync(dir, { recursive: true, force: true });
  for (const file of listed.stdout.split('\0')) {
    // A tracked file deleted in the working tree is not part of it.
    if (file === '' || !existsSync(path.join(packageRoot, file))) continue;
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    copyFileSync(path.join(packageRoot, file), path.join(dir, file));
  }
  symlinkSync(path.join(packageRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}
