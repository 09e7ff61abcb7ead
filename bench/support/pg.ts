/**
 * The benchmark's database: a scratch database on the server of `DATABASE_URL`, or on a throwaway
 * PostgreSQL cluster started here (initdb into a temporary directory, loopback port, trust auth), dropped
 * or deleted at the end.
 *
 * The cluster logic is a copy of test/setup/pg-cluster.ts (PostgreSQL refuses to run as root, so under root
 * initdb and pg_ctl run as the `postgres` user), with what a benchmark needs on top: `pg_stat_statements`
 * preloaded (statements per request and their server time), the postmaster's pid (the CPU time of the
 * server's processes, from /proc), and a choice of durability. By default durability is off, as in the
 * tests (fsync, synchronous_commit, full_page_writes): the data lives only as long as the run, and the
 * engine and its floor pay the same (no) WAL flush. `durable: true` keeps the server's defaults.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';

const run = promisify(execFile);

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
  const cluster = await startCluster(binDir, options);
  try {
    const db = await scratchDatabase(cluster.url, cluster.postmasterPid, `throwaway PostgreSQL cluster on 127.0.0.1:${cluster.port}`);
    return { ...db, drop: async () => { await cluster.stop(); } };
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
    drop: async () => {
      const drop = postgres(serverUrl, { max: 1, onnotice: () => {} });
      await drop.unsafe(`drop database if exists ${name} with (force)`).catch(() => {}).finally(() => drop.end());
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

interface Cluster {
  url: string;
  port: number;
  postmasterPid: number;
  stop(): Promise<void>;
}

/** The bin directory of a local PostgreSQL installation with initdb, or null if there is none. */
export function findPgBinDir(): string | null {
  const preferred = '/usr/lib/postgresql/15/bin';
  if (existsSync(path.join(preferred, 'initdb'))) return preferred;
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl')) ? dir : null;
  } catch {
    return null;
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function startCluster(binDir: string, options: BenchDatabaseOptions): Promise<Cluster> {
  const asRoot = process.getuid?.() === 0;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tradeseal-bench-pg-'));
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'postgres.log');
  const pg = (tool: string, args: string[]) => run(...command(binDir, asRoot, tool, args));

  try {
    if (asRoot) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      await fs.chown(dir, uid, gid);
    }
    await pg('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);

    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const settings = [
        '-c listen_addresses=127.0.0.1', `-p ${port}`, `-k ${dir}`,
        `-c max_connections=${options.maxConnections}`,
        '-c shared_preload_libraries=pg_stat_statements', '-c pg_stat_statements.track=top',
        ...(options.durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
      ].join(' ');
      try {
        await pg('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '60', '-o', settings, 'start']);
      } catch (error) {
        if (attempt < 3) continue;
        const tail = await fs.readFile(log, 'utf8').catch(() => '');
        throw new Error(`pg_ctl start failed: ${(error as Error).message}\n${tail.slice(-2000)}`);
      }
      const postmasterPid = Number((await fs.readFile(path.join(data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
      let stopped: Promise<void> | undefined;
      const stopNow = (): void => {
        try {
          execFileSync(...command(binDir, asRoot, 'pg_ctl', ['-D', data, '-m', 'immediate', 'stop']), { stdio: 'ignore' });
        } catch {
          // Already stopped.
        }
      };
      // If the run dies without teardown, do not leave a server behind.
      process.once('exit', stopNow);
      return {
        url: `postgres://postgres@127.0.0.1:${port}/postgres`,
        port,
        postmasterPid,
        stop: () =>
          (stopped ??= (async () => {
            process.removeListener('exit', stopNow);
            await pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
            await fs.rm(dir, { recursive: true, force: true });
          })()),
      };
    }
  } catch (error) {
    await fs.rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The command line running a PostgreSQL tool, as the `postgres` user when we are root. */
function command(binDir: string, asRoot: boolean, tool: string, args: string[]): [string, string[]] {
  return asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(binDir, tool), ...args]] : [path.join(binDir, tool), args];
}
