/**
 * Vitest global setup: chooses the test database once per run, prepares a migrated template of it, and
 * hands the choice to the workers (`inject(TEST_DB_KEY)`).
 *
 * The choice, first that applies:
 * 1. `TRADESEAL_TEST_DB=pglite`: PGlite, even when a server is available (CI runs the store tests on both).
 * 2. `DATABASE_URL` set: that server. Its user needs CREATEDB; tests create and drop `t_*` databases.
 * 3. PostgreSQL binaries installed (`/usr/lib/postgresql/15/bin`, or `pg_config --bindir`): a throwaway
 *    cluster, started here and deleted in teardown.
 * 4. Otherwise PGlite.
 * `TRADESEAL_TEST_DB=postgres` insists on 2 or 3 and fails if neither is possible.
 *
 * Migrating takes seconds, so it happens once, into a template: a Postgres database that each test database
 * is copied from (`CREATE DATABASE ... TEMPLATE`), or a dump of a migrated PGlite that each test PGlite
 * loads. The published history several files start from (./published-history.ts) is made from it by the
 * first file that asks, once for the run; here it is only named, and removed at the end. So is a scratch
 * directory of the run (`inject(TEST_SCRATCH_KEY)`), for what files share beyond the database.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../src/core/config.js';
import { connect } from '../../src/store/driver.js';
import { serveEmbedded } from '../../src/store/embedded-server.js';
import { migrate } from '../../src/store/migrate.js';
import { findPgBinDir, startCluster } from './pg-cluster.js';
import { TEST_DB_KEY, TEST_SCRATCH_KEY, type TestDbInfo } from './test-db-info.js';
import { databaseUrl } from './database-url.js';
import { PGLITE_PROJECT } from './projects.js';

type Teardown = () => Promise<void>;

export default async function setup(project: TestProject): Promise<Teardown> {
  // Test-harness settings, not tradeseal's: the one place outside config.ts that reads the environment.
  // The project that runs the store tests again on the embedded store (vitest.config.ts) is PGlite always.
  const forced = project.name === PGLITE_PROJECT ? 'pglite' : process.env.TRADESEAL_TEST_DB;
  if (forced !== undefined && forced !== '' && forced !== 'pglite' && forced !== 'postgres') {
    throw new Error(`TRADESEAL_TEST_DB=${forced}: expected pglite or postgres`);
  }
  const given = forced === 'pglite' ? null : loadConfig(process.env).databaseUrl;
  const binDir = forced === 'pglite' || given ? null : findPgBinDir();
  if (forced === 'postgres' && !given && !binDir) {
    throw new Error('TRADESEAL_TEST_DB=postgres but DATABASE_URL is unset and no PostgreSQL binaries were found');
  }

  const started = performance.now();
  let info: TestDbInfo;
  let teardown: Teardown;
  if (given) {
    ({ info, teardown } = await postgresTemplate(given, (v) => `PostgreSQL ${v} server of DATABASE_URL (${new URL(given).host})`));
  } else if (binDir) {
    const cluster = await startCluster(binDir);
    try {
      const prepared = await postgresTemplate(cluster.url, (v) => `throwaway PostgreSQL ${v} cluster on 127.0.0.1:${cluster.port}`);
      info = prepared.info;
      // Dropping the template is pointless when the whole cluster goes.
      teardown = () => cluster.stop();
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  } else {
    const why =
      project.name === PGLITE_PROJECT
        ? 'the store tests again, on the embedded store'
        : forced === 'pglite'
          ? 'forced by TRADESEAL_TEST_DB'
          : 'no DATABASE_URL and no PostgreSQL binaries';
    ({ info, teardown } = await pgliteTemplate(why));
  }

  project.provide(TEST_DB_KEY, info);
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'tradeseal-run-'));
  project.provide(TEST_SCRATCH_KEY, scratch);
  const teardownDb = teardown;
  teardown = async () => {
    try {
      await teardownDb();
    } finally {
      await fs.rm(scratch, { recursive: true, force: true });
    }
  };
  console.log(`[tradeseal tests] ${project.name}: ${info.description}; templates ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return teardown;
}

async function postgresTemplate(adminUrl: string, describe: (version: string) => string): Promise<{ info: TestDbInfo; teardown: Teardown }> {
  const template = `t_template_${randomBytes(5).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    // server_version can carry a distribution suffix, e.g. "15.18 (Debian 15.18-0+deb12u1)".
    const [row] = await admin<{ v: string }[]>`select split_part(current_setting('server_version'), ' ', 1) as v`;
    try {
      await admin.unsafe(`create database ${template}`);
    } catch (error) {
      throw new Error(`cannot create test databases on ${new URL(adminUrl).host}: ${(error as Error).message} (the user needs CREATEDB)`);
    }
    // The template must have no open connection when it is copied, so this handle ends before any test.
    const sql = connect(databaseUrl(adminUrl, template), { max: 1 });
    try {
      await migrate(sql);
    } finally {
      await sql.end();
    }
    const published = { template: `${template}_published`, runFile: path.join(os.tmpdir(), `${template}_published.json`) };
    const info: TestDbInfo = { mode: 'postgres', adminUrl, template, published, description: describe(row?.v ?? '?') };
    return {
      info,
      teardown: async () => {
        const drop = postgres(adminUrl, { max: 1, onnotice: () => {} });
        try {
          // The published template and any copy a dead worker left half made.
          const made = await drop<Array<{ datname: string }>>`select datname from pg_database where datname like ${`${template}%`}`;
          for (const db of [...made.map((m) => m.datname).filter((d) => d !== template), template])
            await drop.unsafe(`drop database if exists ${db} with (force)`);
        } finally {
          await drop.end();
        }
        await fs.rm(published.runFile, { force: true });
      },
    };
  } finally {
    await admin.end();
  }
}

async function pgliteTemplate(why: string): Promise<{ info: TestDbInfo; teardown: Teardown }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tradeseal-pglite-'));
  const emptyDump = path.join(dir, 'empty.tar');
  const migratedDump = path.join(dir, 'migrated.tar');
  const db = await PGlite.create();
  try {
    await fs.writeFile(emptyDump, Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer()));
    const server = await serveEmbedded(db);
    const sql = connect(server.url, { max: 1 });
    try {
      await migrate(sql);
    } finally {
      await sql.end();
      await server.stop();
    }
    await fs.writeFile(migratedDump, Buffer.from(await (await db.dumpDataDir('none')).arrayBuffer()));
  } finally {
    await db.close();
  }
  const published = { dump: path.join(dir, 'published.tar'), runFile: path.join(dir, 'published.json') };
  const info: TestDbInfo = { mode: 'pglite', emptyDump, migratedDump, published, description: `in-memory PGlite per test store (${why})` };
  return { info, teardown: () => fs.rm(dir, { recursive: true, force: true }) };
}
