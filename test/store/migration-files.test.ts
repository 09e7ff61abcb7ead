/** Finding and reading the migration files, from the TypeScript sources and from the compiled build alike. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultMigrationsDir, packageRoot, readMigrations } from '../../src/store/migration-files.js';

const root = path.resolve(import.meta.dirname, '..', '..');

describe('packageRoot', () => {
  it.each([
    ['the TypeScript source', 'src/store/migration-files.ts'],
    ['the compiled build', 'dist/src/store/migration-files.js'],
  ])('finds the package from %s', (_, file) => {
    expect(packageRoot(path.join(root, file))).toBe(root);
  });

  it('fails outside the package', () => {
    expect(() => packageRoot('/definitely/not/tradeseal/file.js')).toThrow(/no tradeseal package.json/);
  });
});

describe('readMigrations', () => {
  it('reads the shipped files of src/store/migrations in version order with their checksums', async () => {
    expect(defaultMigrationsDir()).toBe(path.join(root, 'src', 'store', 'migrations'));
    const files = await readMigrations();
    const names = (await fs.readdir(defaultMigrationsDir())).filter((n) => n.endsWith('.sql')).sort();
    expect(files.map((f) => `${f.version}_${f.name}.sql`)).toEqual(names);
    expect(files[0]).toMatchObject({ version: '0001', name: 'meta' });
    for (const f of files) {
      expect(f.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(f.sql.length).toBeGreaterThan(0);
    }
  });
});
