/**
 * The benchmark's database: a scratch database on the server of `DATABASE_URL`, or on a throwaway
 * PostgreSQL cluster started here (test/setup/pg-cluster.ts, the one the tests use), dropped or deleted at
 * the end.
 *
 * On top of the tests' cluster, a benchmark's has `pg_stat_statements` preloaded (statements per request
 * and their server time), reports the postmaster's pid (the CPU time of the server's processes, from
 * /proc), and sizes max_connections for the pool. By default durability is off, as in the tests (fsync,
 * synchronous_commit, full_page_writes): the data lives only as long as the run, and the engine and its
 * floor pay the same (no) WAL flush. `durable: true` keeps the server's defaults.
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { findPgBinDir, startCluster } from '../../test/setup/pg-cluster.js';

export interface BenchDatabase {
  /** URL of the scratch database the engine uses. */
  url: string;
  /** Where it runs, for the report (no password). */
  description: string;
  /** `PostgreSQL 15.x`. */
  version: string;
  /** The postmaster's pid when the cluster is ours (its processes' CPU can then be read from /proc). */
  postmasterPid: number | null;
  /** Whether `pg_stat_statements` can be read on this database. */
  statements: boolean;
  /** Another scratch database on the same server (the scale run's empty store), dropped by its own `drop`. */
  another(): Promise<BenchDatabase>;
  drop(): Promise<void>;
}

export interface BenchDatabaseOptions {
  /** A server to create the scratch database on; null starts a throwaway cluster. */
  serverUrl: string | null;
  /** For a throwaway cluster: keep fsync, synchronous_commit and full_page_writes on (a server's are its own). */
  durable: boolean;
  /** max_connections of a throwaway cluster: the pool plus the harness's own connections, with room. */
  maxConnections: number;
}

export async function openBenchDatabase(options: BenchDatabaseOptions): Promise<BenchDatabase> {
  if (options.serverUrl) return scratchDatabase(options.serverUrl, null, `scratch database on the server of DATABASE_URL (${new URL(options.serverUrl).host})`);
  const binDir = findPgBinDir();
  if (!binDir) throw new Error('DATABASE_URL is unset and no PostgreSQL binaries were found (/usr/lib/postgresql/15/bin or pg_config --bindir)');
  const cluster = await startCluster(binDir, {
    durable: options.durable,
    maxConnections: options.maxConnections,
    settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'top' },
  });
  try {
    const db = await scratchDatabase(cluster.url, cluster.postmasterPid, `throwaway PostgreSQL cluster on 127.0.0.1:${cluster.port}`);
    // Stopping the cluster deletes every database on it.
    return {
      ...db,
      drop: async () => {
        await cluster.stop();
      },
    };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

/** Creates `tradeseal_bench_<random>` on the server, with pg_stat_statements when the server has it loaded. */
async function scratchDatabase(serverUrl: string, postmasterPid: number | null, where: string): Promise<BenchDatabase> {
  const name = `tradeseal_bench_${randomBytes(4).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  let version = '?';
  try {
    const [row] = await admin<{ v: string }[]>`select split_part(current_setting('server_version'), ' ', 1) as v`;
    version = row?.v ?? '?';
    try {
      await admin.unsafe(`create database ${name}`);
    } catch (error) {
      throw new Error(`cannot create the scratch database on ${new URL(serverUrl).host}: ${(error as Error).message} (the user needs CREATEDB)`);
    }
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const statements = await enableStatements(url.toString());
  return {
    url: url.toString(),
    description: where,
    version: `PostgreSQL ${version}`,
    postmasterPid,
    statements,
    another: () => scratchDatabase(serverUrl, postmasterPid, where),
    drop: async () => {
      const drop = postgres(serverUrl, { max: 1, onnotice: () => {} });
      await drop
        .unsafe(`drop database if exists ${name} with (force)`)
        .catch(() => {})
        .finally(() => drop.end());
    },
  };
}

async function enableStatements(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`create extension if not exists pg_stat_statements`;
    await sql`select count(*) from pg_stat_statements`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end();
  }
}
