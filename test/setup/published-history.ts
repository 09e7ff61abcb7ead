/**
 * The published history shared by the tests that start from one: the pipeline run once per test run on a
 * copy of the migrated template, which test files then copy as they copy the migrated one
 * (`testStore({ history: 'published' })` in test/helpers/db.ts). Each file gets its own copy, so a file may
 * write to it; what it starts from is always exactly this run's output.
 *
 * It is made by the first file that asks, not in the global setup, so that a run without such a file (one
 * file, the store tests on PGlite) does not pay for it. Workers ask at the same time: on PostgreSQL the maker
 * holds an advisory lock on the admin database and builds under another name, renamed once complete; on
 * PGlite it holds a lock directory beside the dump. The others wait for the lock, then find it made. What the
 * run reported is kept in a JSON file beside it.
 *
 * The run: the bundled data as of 2009-03-31 (the burn-in, late 2008's stress and the first months of 2009:
 * every regime appears), published, seed 7.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { runPipeline, type RunSummary } from '../../src/signals/publish/run.js';
import { connect } from '../../src/store/driver.js';
import { serveEmbedded } from '../../src/store/embedded-server.js';
import { databaseUrl } from './database-url.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const PUBLISHED_HISTORY = Object.freeze({ dataDir: path.join(REPO_ROOT, 'data/macro'), asOf: '2009-03-31', publish: true, seed: 7 });

/** What the run reported, for tests that compare with it. */
export type PublishedRun = RunSummary;

/** Makes database `published.template` from `template` unless it exists; the run's report goes to `published.runFile`. */
export async function ensurePublishedDatabase(adminUrl: string, template: string, published: { template: string; runFile: string }): Promise<void> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin`select pg_advisory_lock(hashtext(${published.template}))`;
    const [made] = await admin`select 1 from pg_database where datname = ${published.template}`;
    if (made) return;
    // Built under another name and renamed once complete: a worker that dies half-way leaves no template.
    const building = `${template}_building_${randomBytes(4).toString('hex')}`;
    await admin.unsafe(`create database ${building} template ${template}`);
    const sql = connect(databaseUrl(adminUrl, building), { max: 4 });
    try {
      await fs.writeFile(published.runFile, JSON.stringify(await runPipeline(sql, PUBLISHED_HISTORY)));
    } finally {
      await sql.end();
    }
    await admin.unsafe(`alter database ${building} rename to ${published.template}`);
  } finally {
    // Ending the session releases the lock.
    await admin.end();
  }
}

/** Writes the dump `published.dump` from the migrated dump unless it exists; the run's report goes to `published.runFile`. */
export async function ensurePublishedDump(migratedDump: string, published: { dump: string; runFile: string }): Promise<void> {
  const lock = `${published.dump}.lock`;
  for (;;) {
    try {
      await fs.mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    if (
      await fs.stat(published.dump).then(
        () => true,
        () => false,
      )
    )
      return;
    const db = await PGlite.create({ loadDataDir: new Blob([await fs.readFile(migratedDump)]) });
    try {
      const server = await serveEmbedded(db);
      // More than one connection: a pipeline run holds its lock on one while it publishes on another.
      const sql = connect(server.url, { max: 4 });
      try {
        await fs.writeFile(published.runFile, JSON.stringify(await runPipeline(sql, PUBLISHED_HISTORY)));
      } finally {
        await sql.end();
        await server.stop();
      }
      const building = `${published.dump}.${randomBytes(4).toString('hex')}`;
      await fs.writeFile(building, Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer()));
      await fs.rename(building, published.dump);
    } finally {
      await db.close();
    }
  } finally {
    await fs.rm(lock, { recursive: true, force: true });
  }
}
