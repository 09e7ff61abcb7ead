/**
 * The whole content of a test database as text, to search for what must not be there.
 *
 * Against Postgres: `pg_dump` of the database (schema and data, every schema, bytea as hex) from the same
 * installation the test cluster runs on. PGlite speaks a newer server version than that pg_dump accepts, so
 * there every row of every table outside the system catalogs is read back as text instead.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { findPgBinDir } from '../setup/pg-cluster.js';
import type { TestStore } from './db.js';

const run = promisify(execFile);

export async function dumpDatabase(store: TestStore): Promise<string> {
  if (store.mode === 'postgres') {
    const bin = findPgBinDir();
    const pgDump = bin ? path.join(bin, 'pg_dump') : 'pg_dump';
    const { stdout } = await run(pgDump, ['--dbname', store.url, '--no-owner'], { maxBuffer: 256 * 1024 * 1024 });
    return stdout;
  }
  const tables = await store.sql<Array<{ name: string }>>`
    select format('%I.%I', schemaname, tablename) as name from pg_tables
    where schemaname not in ('pg_catalog', 'information_schema') order by 1`;
  const parts: string[] = [];
  for (const { name } of tables) {
    const rows = await store.sql.unsafe<Array<{ row: string }>>(`select t::text as row from ${name} t`);
    parts.push(`-- ${name}`, ...rows.map((r) => r.row));
  }
  return parts.join('\n');
}

/** Where `text` occurs in `dump`: as written, or as the hex of its UTF-8 bytes (how a bytea column holds it). */
export function plaintextIn(dump: string, text: string): string[] {
  const found: string[] = [];
  if (dump.includes(text)) found.push('as text');
  if (dump.toLowerCase().includes(Buffer.from(text, 'utf8').toString('hex'))) found.push('as hex');
  return found;
}
