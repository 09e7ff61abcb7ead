/**
 * `testStore()`: an isolated, fully migrated database for one test file or test, through the same driver as
 * production.
 *
 * Against Postgres each call creates database `t_<random>` from the template migrated in the global setup,
 * and `close()` drops it. Against PGlite each call loads the migrated dump into a fresh in-memory PGlite,
 * served over a loopback socket like the embedded store. Which one is chosen once per run by
 * `test/setup/global-db.ts`; `mode` says which.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { inject } from 'vitest';
import type { Store } from '../../src/store/db.js';
import { connect } from '../../src/store/driver.js';
import { serveEmbedded } from '../../src/store/embedded-server.js';
import { databaseUrl } from '../setup/database-url.js';
import { ensurePublishedDatabase, ensurePublishedDump, type PublishedRun } from '../setup/published-history.js';
import { TEST_DB_KEY, type TestDbInfo } from '../setup/test-db-info.js';

export type TestStore = Store & { mode: 'postgres' | 'pglite' };

export interface TestStoreOptions {
  /** False gives an empty database with no migration applied, for testing the migrations themselves. Default true. */
  migrated?: boolean;
  /**
   * `published`: a copy of the published history made once for the run (test/setup/published-history.ts;
   * `publishedRun()` is what its run reported). Default: none.
   */
  history?: 'published';
  /** Connections in the pool; default 10. */
  max?: number;
}

export function testDbInfo(): TestDbInfo {
  return inject(TEST_DB_KEY);
}

export async function testStore(options: TestStoreOptions = {}): Promise<TestStore> {
  const info = testDbInfo();
  const migrated = options.migrated ?? true;
  if (options.history === 'published') {
    if (!migrated) throw new Error('testStore: a published history is a migrated store');
    await publishedHistory();
    return info.mode === 'postgres' ? postgresStore(info.adminUrl, info.published.template, options.max) : pgliteStore(info.published.dump, options.max);
  }
  return info.mode === 'postgres'
    ? postgresStore(info.adminUrl, migrated ? info.template : 'template0', options.max)
    : pgliteStore(migrated ? info.migratedDump : info.emptyDump, options.max);
}

/** Made once per run by whichever worker asks first (test/setup/published-history.ts); once per worker after that. */
let published: Promise<void> | undefined;
function publishedHistory(): Promise<void> {
  const info = testDbInfo();
  published ??=
    info.mode === 'postgres' ? ensurePublishedDatabase(info.adminUrl, info.template, info.published) : ensurePublishedDump(info.migratedDump, info.published);
  return published;
}

/** What the pipeline run of the shared published history reported (`testStore({ history: 'published' })`). */
export async function publishedRun(): Promise<PublishedRun> {
  await publishedHistory();
  return JSON.parse(await fs.readFile(testDbInfo().published.runFile, 'utf8')) as PublishedRun;
}

async function postgresStore(adminUrl: string, template: string, max?: number): Promise<TestStore> {
  const name = `t_${randomBytes(8).toString('hex')}`;
  await withAdmin(adminUrl, async (admin) => {
    // Two CREATE DATABASE from one template at the same instant can fail with 55006 ("source database is
    // being accessed by other users") while the other copies it; a short retry absorbs that.
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.unsafe(`create database ${name} template ${template}`);
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== '55006' || attempt === 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
  });
  const url = databaseUrl(adminUrl, name);
  const sql = connect(url, { max: max ?? 10 });
  let closing: Promise<void> | undefined;
  return {
    sql,
    kind: 'postgres',
    created: false,
    mode: 'postgres',
    url,
    close: () =>
      (closing ??= (async () => {
        await sql.end({ timeout: 5 });
        await withAdmin(adminUrl, (admin) => admin.unsafe(`drop database if exists ${name} with (force)`));
      })()),
  };
}

async function withAdmin<T>(adminUrl: string, fn: (admin: postgres.Sql) => Promise<T>): Promise<T> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

/** Dumps read once per worker: each test store loads the same bytes. */
const dumps = new Map<string, Promise<Blob>>();

async function pgliteStore(dump: string, max?: number): Promise<TestStore> {
  let blob = dumps.get(dump);
  if (!blob) {
    blob = fs.readFile(dump).then((bytes) => new Blob([bytes]));
    dumps.set(dump, blob);
  }
  const db = await PGlite.create({ loadDataDir: await blob });
  const server = await serveEmbedded(db);
  const sql = connect(server.url, { max: max ?? 10 });
  let closing: Promise<void> | undefined;
  return {
    sql,
    kind: 'embedded',
    created: false,
    mode: 'pglite',
    url: server.url,
    close: () =>
      (closing ??= (async () => {
        await sql.end({ timeout: 5 });
        await server.stop();
        await db.close();
      })()),
  };
}
