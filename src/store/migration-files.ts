/**
 * The migration files: `src/store/migrations/`, each named `NNNN_name.sql`, read in version order with their SHA-256.
 *
 * The directory is found from the package root (the nearest directory up from this module whose
 * package.json is tradeseal's), because this module runs from two places: `src/store/` under tsx and
 * vitest, and `dist/src/store/` once compiled, while the `.sql` files are never copied into `dist/`
 * (the package ships `src/store/migrations` itself).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { TradesealError } from '../core/errors.js';
import { packageRoot } from '../core/package-root.js';

export { packageRoot };

export interface MigrationFile {
  /** The four digits of the file name, e.g. `0001`; the key in `schema_migrations`. */
  version: string;
  /** The rest of the file name, e.g. `meta`. */
  name: string;
  path: string;
  sql: string;
  /** Hex SHA-256 of the file's bytes: an applied migration must never change. */
  checksum: string;
}

const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export const defaultMigrationsDir = (): string => path.join(packageRoot(), 'src', 'store', 'migrations');

/**
 * Every `.sql` file of `dir`, sorted by version. Other files are ignored; a `.sql` file whose name does not
 * follow `NNNN_name.sql`, or two files with one version, fail loudly rather than being skipped or applied
 * in a surprising order.
 */
export async function readMigrations(dir: string = defaultMigrationsDir()): Promise<MigrationFile[]> {
  const names = (await fs.readdir(dir)).filter((n) => n.endsWith('.sql')).sort();
  const files: MigrationFile[] = [];
  for (const fileName of names) {
    const match = FILE_NAME.exec(fileName);
    if (!match) {
      throw new TradesealError('store_error', `migration file ${fileName} in ${dir} is not named NNNN_lowercase_name.sql`);
    }
    const [, version, name] = match as unknown as [string, string, string];
    if (files.some((f) => f.version === version)) {
      throw new TradesealError('store_error', `two migration files in ${dir} have version ${version}`);
    }
    const bytes = await fs.readFile(path.join(dir, fileName));
    files.push({ version, name, path: path.join(dir, fileName), sql: bytes.toString('utf8'), checksum: createHash('sha256').update(bytes).digest('hex') });
  }
  return files;
}
