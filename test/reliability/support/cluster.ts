/**
 * The reliability suite's own PostgreSQL cluster: started on a free port from the same code as the tests'
 * shared cluster (test/setup/pg-cluster.ts), so a test may stop and start it under load without touching the
 * cluster every other test file uses. Its URL carries a password (trust authentication never asks for it),
 * so that a test can look for that password in the servers' logs.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { connect, type Sql } from '../../../src/store/driver.js';
import { findPgBinDir, startCluster, type Cluster } from '../../setup/pg-cluster.js';

export interface PrivateStore {
  cluster: Cluster;
  /** DATABASE_URL of the servers: the `tradeseal` database, as `postgres` with a password. */
  url: string;
  /** The password in `url`: it must never appear in a log. */
  password: string;
  /** Connections of the test's own (tradeseal's driver settings), for checking what the store holds and for setup. */
  admin: Sql;
  close(): Promise<void>;
}

export async function privateStore(options: { maxConnections?: number } = {}): Promise<PrivateStore> {
  const binDir = findPgBinDir();
  if (!binDir) throw new Error('the reliability suite needs PostgreSQL binaries (/usr/lib/postgresql/15/bin or pg_config --bindir)');
  const cluster = await startCluster(binDir, { maxConnections: options.maxConnections ?? 200 });
  try {
    const setup = postgres(cluster.url, { max: 1, onnotice: () => {} });
    await setup.unsafe('create database tradeseal').finally(() => setup.end());
    const password = `pw-${randomBytes(12).toString('hex')}`;
    const url = `postgres://postgres:${password}@127.0.0.1:${cluster.port}/tradeseal`;
    const admin = connect(url, { max: 2, connectTimeoutMs: 5000 });
    return {
      cluster,
      url,
      password,
      admin,
      close: async () => {
        await admin.end({ timeout: 1 }).catch(() => {});
        await cluster.stop();
      },
    };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

/**
 * Freezes every process of the cluster (SIGSTOP) until the returned function thaws them (SIGCONT): a store
 * that stops answering without closing a connection, as a hung host or a network partition looks to a client.
 * New connections are accepted by the kernel but never answered; statements in flight never finish.
 */
export async function freeze(cluster: Cluster): Promise<() => Promise<void>> {
  const postmaster = Number((await readFile(path.join(cluster.dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const pids = [postmaster, ...(await childrenOf(postmaster))];
  for (const pid of pids) process.kill(pid, 'SIGSTOP');
  return async () => {
    for (const pid of pids) process.kill(pid, 'SIGCONT');
  };
}

async function childrenOf(parent: number): Promise<number[]> {
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid …: the command may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === parent) children.push(Number(entry));
  }
  return children;
}
