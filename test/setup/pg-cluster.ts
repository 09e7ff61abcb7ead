/**
 * A throwaway PostgreSQL cluster: initdb into a temporary directory, start it on a free loopback port with
 * trust authentication, stop and delete it afterwards. The one implementation for the test setup
 * (test/setup/global-db.ts) and the benchmarks (bench/support/pg.ts).
 *
 * PostgreSQL refuses to run as root, so under root (containers, CI) initdb and pg_ctl run as the `postgres`
 * user through `runuser`, in a directory handed to that user. By default durability is switched off (fsync,
 * synchronous_commit, full_page_writes): the data lives only as long as the run. `durable: true` keeps the
 * server's defaults; `maxConnections` and further `settings` (e.g. shared_preload_libraries) are options.
 * `halt` and `resume` stop and start the server on the same port and data, for tests of a store outage.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Cluster {
  /** URL of the cluster's `postgres` database, as superuser `postgres`. */
  url: string;
  port: number;
  /** The postmaster's pid at the first start (the CPU time of the server's processes can be read from /proc). */
  postmasterPid: number;
  /** The data directory (its `postmaster.pid` names the running postmaster). */
  dataDir: string;
  /**
   * Stops the server, keeping its data: `fast` (the default) ends every session with 57P01 (admin shutdown)
   * as an operator's restart does, `immediate` drops them as a crash would.
   */
  halt(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts a halted server again, on the same port and data. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** Keep fsync, synchronous_commit and full_page_writes on (the server's defaults). Default false. */
  durable?: boolean;
  /** Default 300. */
  maxConnections?: number;
  /** Further server settings, passed as `-c name=value` (values without spaces). */
  settings?: Record<string, string>;
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

/** A port the OS considers free right now. Another process may take it before we bind it; callers retry. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function startCluster(binDir: string, options: ClusterOptions = {}): Promise<Cluster> {
  const asRoot = process.getuid?.() === 0;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tradeseal-pg-'));
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'postgres.log');
  const pg = (tool: string, args: string[]) => run(...command(binDir, asRoot, tool, args));
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    max_connections: String(options.maxConnections ?? 300),
    ...(options.durable ? {} : { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' }),
    ...options.settings,
  };
  const flags = Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`);

  try {
    if (asRoot) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      await fs.chown(dir, uid, gid);
    }
    await pg('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);

    // The free port can be taken between finding and binding it; a few attempts make that harmless.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const serverOptions = [`-p ${port}`, `-k ${dir}`, ...flags].join(' ');
      try {
        await pg('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '60', '-o', serverOptions, 'start']);
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
        dataDir: data,
        halt: async (mode = 'fast') => {
          await pg('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
        },
        resume: async () => {
          await pg('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '60', '-o', serverOptions, 'start']);
        },
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
