/**
 * Applies the migration files to the store and reports which are applied.
 *
 * Each file runs in its own transaction together with its row in `schema_migrations`, so a file is either
 * wholly applied and recorded or not at all. (A file therefore cannot use statements that refuse to run in
 * a transaction, such as `CREATE INDEX CONCURRENTLY`.) The whole run holds the `migrate` advisory lock, so
 * replicas starting at once apply each file once, the others waiting and then finding nothing to do.
 * An applied file whose checksum changed is refused before anything runs: the database would no longer
 * match what the files describe, and the fix is a new migration, not an edit.
 */
import type postgres from 'postgres';
import { TradesealError } from '../core/errors.js';
import { ADVISORY_LOCKS, transactionOn, withAdvisoryLock } from './advisory-lock.js';
import type { Sql } from './driver.js';
import { readMigrations, type MigrationFile } from './migration-files.js';

export interface MigrateOptions {
  /** Directory of migration files; default `src/store/migrations` of the package. */
  dir?: string;
}

export interface MigrationState {
  version: string;
  name: string;
  applied_at: Date | null;
  pending: boolean;
  /** Applied, but the file's checksum differs from the recorded one: `migrate()` refuses to run. */
  changed: boolean;
}

interface AppliedRow {
  version: string;
  name: string;
  checksum: string;
  applied_at: Date;
}

/** Applies every pending file in version order. Returns the applied ones as `NNNN_name`. */
export async function migrate(sql: Sql, options: MigrateOptions = {}): Promise<{ applied: string[] }> {
  const files = await readMigrations(options.dir);
  return withAdvisoryLock(sql, ADVISORY_LOCKS.migrate, async (conn) => {
    await conn.unsafe(`create table if not exists schema_migrations (
      version text primary key,
      name text not null,
      checksum text not null,
      applied_at timestamptz not null default now()
    )`);
    const recorded = new Map((await appliedRows(conn)).map((row) => [row.version, row]));
    for (const file of files) refuseIfChanged(file, recorded.get(file.version));

    const applied: string[] = [];
    for (const file of files) {
      if (recorded.has(file.version)) continue;
      const ran = await transactionOn(conn, async (tx) => {
        // Checked again inside the transaction: on the embedded store the advisory lock cannot exclude a
        // concurrent run (every connection is one session), but its transactions do run one at a time.
        const [row] = await tx<AppliedRow[]>`select version, name, checksum, applied_at from schema_migrations where version = ${file.version} for update`;
        if (row) {
          refuseIfChanged(file, row);
          return false;
        }
        await tx.unsafe(file.sql);
        await tx`insert into schema_migrations (version, name, checksum) values (${file.version}, ${file.name}, ${file.checksum})`;
        return true;
      }).catch((error: unknown) => {
        if (error instanceof TradesealError) throw error;
        throw new TradesealError('store_error', `migration ${file.version}_${file.name} failed: ${(error as Error).message}`, { cause: error });
      });
      if (ran) applied.push(`${file.version}_${file.name}`);
    }
    return { applied };
  });
}

/**
 * Every migration file with its state, in version order, followed by any version the database has applied
 * but no file describes (the database is ahead of this build), shown as applied.
 */
export async function migrationStatus(sql: Sql, options: MigrateOptions = {}): Promise<MigrationState[]> {
  const files = await readMigrations(options.dir);
  const rows = await appliedRows(sql);
  const recorded = new Map(rows.map((row) => [row.version, row]));
  const states: MigrationState[] = files.map((file) => {
    const row = recorded.get(file.version);
    return {
      version: file.version,
      name: file.name,
      applied_at: row?.applied_at ?? null,
      pending: !row,
      changed: row !== undefined && row.checksum !== file.checksum,
    };
  });
  const known = new Set(files.map((f) => f.version));
  for (const row of rows) {
    if (!known.has(row.version)) states.push({ version: row.version, name: row.name, applied_at: row.applied_at, pending: false, changed: false });
  }
  return states;
}

async function appliedRows(sql: Sql | postgres.ReservedSql): Promise<AppliedRow[]> {
  const [table] = await sql<{ exists: boolean }[]>`select to_regclass('schema_migrations') is not null as exists`;
  if (!table?.exists) return [];
  return sql<AppliedRow[]>`select version, name, checksum, applied_at from schema_migrations order by version`;
}

function refuseIfChanged(file: MigrationFile, row: AppliedRow | undefined): void {
  if (row && row.checksum !== file.checksum) {
    throw new TradesealError(
      'store_error',
      `migration ${file.version}_${file.name} was applied with checksum ${row.checksum} but the file now has ${file.checksum}`,
      { hint: 'never edit an applied migration; restore the file and add a new migration with the change' },
    );
  }
}
