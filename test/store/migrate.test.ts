/** Migrations: applied in order, once, recorded with checksums, under a lock, refused when an applied file changed. */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TradesealError } from '../../src/core/errors.js';
import { connect } from '../../src/store/driver.js';
import { migrate, migrationStatus } from '../../src/store/migrate.js';
import { defaultMigrationsDir, readMigrations } from '../../src/store/migration-files.js';
import { testStore, type TestStore } from '../helpers/db.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function emptyStore(): Promise<TestStore> {
  const store = await testStore({ migrated: false });
  cleanups.push(() => store.close());
  return store;
}

/** A temporary migrations directory holding `files`. */
async function migrationsDir(files: Record<string, string>): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tradeseal-migrations-'));
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  for (const [name, sql] of Object.entries(files)) await fs.writeFile(path.join(dir, name), sql);
  return dir;
}

async function rejection(promise: Promise<unknown>): Promise<TradesealError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TradesealError);
  return error as TradesealError;
}

describe('the shipped migrations', () => {
  it('apply to an empty database, are recorded with their checksums, and a second run applies nothing', async () => {
    const store = await emptyStore();
    const files = await readMigrations();
    expect(files.map((f) => f.version)).toContain('0001');

    const first = await migrate(store.sql);
    expect(first.applied).toEqual(files.map((f) => `${f.version}_${f.name}`));

    const rows = await store.sql<{ version: string; name: string; checksum: string; applied_at: Date }[]>`
      select version, name, checksum, applied_at from schema_migrations order by version`;
    expect(rows.map((r) => r.version)).toEqual(files.map((f) => f.version));
    for (const row of rows) {
      const file = files.find((f) => f.version === row.version)!;
      const bytes = await fs.readFile(path.join(defaultMigrationsDir(), `${row.version}_${row.name}.sql`));
      expect(row.checksum).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(row.checksum).toBe(file.checksum);
      expect(row.applied_at).toBeInstanceOf(Date);
    }
    const [meta] = await store.sql<{ key: string }[]>`select key from tradeseal_meta where key = 'created_at'`;
    expect(meta?.key).toBe('created_at');

    expect(await migrate(store.sql)).toEqual({ applied: [] });
    expect(await store.sql`select * from schema_migrations`).toHaveLength(files.length);
  });

  it('are already applied in a test store, and migrationStatus says so', async () => {
    const store = await testStore();
    cleanups.push(() => store.close());
    const status = await migrationStatus(store.sql);
    expect(status.length).toBeGreaterThan(0);
    for (const s of status) {
      expect(s.pending).toBe(false);
      expect(s.changed).toBe(false);
      expect(s.applied_at).toBeInstanceOf(Date);
    }
    expect(await migrate(store.sql)).toEqual({ applied: [] });
  });
});

describe('migrate() and migrationStatus() on a directory of files', () => {
  it('reports every file pending before the first run, applies them in version order, then none pending', async () => {
    const store = await emptyStore();
    // 0002 needs 0001's table: applying out of order fails.
    const dir = await migrationsDir({
      '0002_fill.sql': "insert into items (name) values ('first');",
      '0001_items.sql': 'create table items (name text primary key);',
      'README.md': 'not a migration, ignored',
    });

    const before = await migrationStatus(store.sql, { dir });
    expect(before).toEqual([
      { version: '0001', name: 'items', applied_at: null, pending: true, changed: false },
      { version: '0002', name: 'fill', applied_at: null, pending: true, changed: false },
    ]);

    expect(await migrate(store.sql, { dir })).toEqual({ applied: ['0001_items', '0002_fill'] });
    expect(await store.sql`select name from items`).toEqual([{ name: 'first' }]);
    const after = await migrationStatus(store.sql, { dir });
    expect(after.map((s) => [s.version, s.pending])).toEqual([
      ['0001', false],
      ['0002', false],
    ]);

    await fs.writeFile(path.join(dir, '0003_more.sql'), "insert into items (name) values ('second');");
    const withNew = await migrationStatus(store.sql, { dir });
    expect(withNew.filter((s) => s.pending).map((s) => s.version)).toEqual(['0003']);
    expect(await migrate(store.sql, { dir })).toEqual({ applied: ['0003_more'] });
    expect(await store.sql`select name from items order by name`).toEqual([{ name: 'first' }, { name: 'second' }]);
  });

  it('refuses to run when an applied file changed, and applies nothing else', async () => {
    const store = await emptyStore();
    const dir = await migrationsDir({ '0001_items.sql': 'create table items (name text);' });
    await migrate(store.sql, { dir });

    await fs.writeFile(path.join(dir, '0001_items.sql'), 'create table items (name text, price numeric);');
    await fs.writeFile(path.join(dir, '0002_other.sql'), 'create table other (x int);');
    const error = await rejection(migrate(store.sql, { dir }));
    expect(error.code).toBe('store_error');
    expect(error.message).toMatch(/0001_items was applied with checksum [0-9a-f]{64} but the file now has [0-9a-f]{64}/);
    expect(error.hint).toMatch(/new migration/);

    const [other] = await store.sql<{ exists: boolean }[]>`select to_regclass('other') is not null as exists`;
    expect(other?.exists).toBe(false);
    const status = await migrationStatus(store.sql, { dir });
    expect(status.map((s) => [s.version, s.pending, s.changed])).toEqual([
      ['0001', false, true],
      ['0002', true, false],
    ]);
  });

  it('rolls back a failing file entirely, records nothing for it, and keeps the files before it', async () => {
    const store = await emptyStore();
    const dir = await migrationsDir({
      '0001_ok.sql': 'create table ok (x int);',
      '0002_broken.sql': 'create table half (x int);\nselect 1 / 0;',
    });
    const error = await rejection(migrate(store.sql, { dir }));
    expect(error.code).toBe('store_error');
    expect(error.message).toMatch(/0002_broken failed: division by zero/);

    const tables = await store.sql<{ ok: boolean; half: boolean }[]>`
      select to_regclass('ok') is not null as ok, to_regclass('half') is not null as half`;
    expect(tables).toEqual([{ ok: true, half: false }]);
    expect(await store.sql`select version from schema_migrations`).toEqual([{ version: '0001' }]);
  });

  it('lists a version the database applied but no file describes as applied', async () => {
    const store = await emptyStore();
    await migrate(store.sql, { dir: await migrationsDir({ '0001_a.sql': 'select 1;', '0002_b.sql': 'select 2;' }) });
    const status = await migrationStatus(store.sql, { dir: await migrationsDir({ '0001_a.sql': 'select 1;' }) });
    expect(status.map((s) => [s.version, s.name, s.pending])).toEqual([
      ['0001', 'a', false],
      ['0002', 'b', false],
    ]);
  });

  it.each<{ problem: string; files: Record<string, string>; message: RegExp }>([
    { problem: 'a name with capitals and a dash', files: { '0001_Bad-Name.sql': 'select 1;' }, message: /not named NNNN_lowercase_name\.sql/ },
    { problem: 'a version of fewer than four digits', files: { '1_short.sql': 'select 1;' }, message: /not named NNNN_lowercase_name\.sql/ },
    {
      problem: 'two files of one version',
      files: { '0001_a.sql': 'select 1;', '0001_b.sql': 'select 2;' },
      message: /two migration files .* have version 0001/,
    },
  ])('refuses a directory with $problem before touching the database', async ({ files, message }) => {
    const store = await emptyStore();
    const error = await rejection(migrate(store.sql, { dir: await migrationsDir(files) }));
    expect(error.message).toMatch(message);
    const [table] = await store.sql<{ exists: boolean }[]>`select to_regclass('schema_migrations') is not null as exists`;
    expect(table?.exists).toBe(false);
  });
});

describe('concurrent migrate() from separate handles', () => {
  it('applies each file exactly once', async () => {
    const store = await emptyStore();
    // Not idempotent on purpose: a second application of 0001 fails, of 0002 adds a row. The sleep keeps
    // the first runner inside its transaction while the others arrive.
    const dir = await migrationsDir({
      '0001_runs.sql': 'create table runs (n int);\nselect pg_sleep(0.2);',
      '0002_count.sql': 'insert into runs values (1);',
      '0003_more.sql': 'insert into runs values (2);',
    });
    const handles = Array.from({ length: 5 }, () => connect(store.url, { max: 2 }));
    cleanups.push(() => Promise.all(handles.map((h) => h.end({ timeout: 1 }))));

    const settled = await Promise.allSettled(handles.map((h) => migrate(h, { dir })));
    const failures = settled.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
    expect(failures).toEqual([]);

    const applied = settled.flatMap((s) => (s.status === 'fulfilled' ? s.value.applied : [])).sort();
    expect(applied).toEqual(['0001_runs', '0002_count', '0003_more']);
    expect(await store.sql`select n from runs order by n`).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await store.sql`select version from schema_migrations order by version`).toEqual([{ version: '0001' }, { version: '0002' }, { version: '0003' }]);
  });
});
