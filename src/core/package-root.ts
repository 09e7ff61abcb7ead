/**
 * The package's root directory: the nearest directory up from a module whose package.json is tradeseal's. Modules
 * run from two places, `src/` under tsx and vitest and `dist/src/` once compiled, while the data, the policy and
 * the migrations are never copied into `dist/`: they are found from here.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TradesealError } from './errors.js';

/** The directory holding tradeseal's package.json, found by walking up from `from`. */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string {
  let dir = path.dirname(from);
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'tradeseal') return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new TradesealError('internal', `no tradeseal package.json above ${from}`);
    dir = parent;
  }
}
