/**
 * A throwaway PostgreSQL cluster for one test run: initdb into a temporary directory, start it on a free
 * loopback port with trust authentication, stop and delete it afterwards.
 *
 * PostgreSQL refuses to run as root, so under root (containers, CI) initdb and pg_ctl run as the `postgres`
 * user through `runuser`, in a directory handed to that user. Durability is switched off (fsync,
 * synchronous_commit, full_page_writes): the data lives only as long as the run.
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

export async function startCluster(binDir: string): Promise<Cluster> {
  const asRoot = process.getuid?.() === 0;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tradeseal-pg-'));
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

    // The free port can be taken between finding and binding it; a few attempts make that harmless.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
      try {
        await pg('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '60', '-o', options, 'start']);
      } catch (error) {
        if (attempt < 3) continue;
        const tail = await fs.readFile(log, 'utf8').catch(() => '');
        throw new Error(`pg_ctl start failed: ${(error as Error).message}\n${tail.slice(-2000)}`);
      }
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
