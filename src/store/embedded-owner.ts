/**
 * Which process serves the embedded store of a home directory: the owner file `<home>/embedded.json`.
 *
 * Two processes must never open one PGlite data directory (each would write the files behind the other's
 * back). So the first process to claim the file owns the directory and serves it on a loopback port; any
 * other process (a CLI command while `tradeseal serve` runs) finds `{pid, port}` there and connects to that
 * port instead.
 *
 * Races are settled by the file system, never by read-then-write:
 * - claiming is `link(tmp, embedded.json)`, which fails if the file exists, and makes a complete file appear;
 * - publishing the port is `rename(tmp, embedded.json)`, atomic;
 * - a stale file (its pid is dead, or it names this very pid but was not written by this process, as after a
 *   container restart where the server is pid 1 again) is removed only by the holder of a takeover lock
 *   (`embedded.json.takeover`, taken with `link`), who re-reads the file under the lock and removes it only if
 *   it still holds the stale record. Nobody else removes another's owner file and a claim cannot replace an
 *   existing file, so a fresh claim is never removed; then every racer tries to claim, and one wins.
 *   A takeover lock older than 10 s (its holder died within its few milliseconds of work) is broken.
 * A live owner that has not yet published its port (PGlite takes seconds to initialise a new directory) or
 * that does not answer (it is closing) is waited for, up to a deadline.
 *
 * A server must own the store it serves (`mustOwn`): a client loses the store when its owner exits, which a
 * command can live with but a server cannot. So a server waits while a command owns the store (a pipeline run,
 * say), saying so, and takes it over when the command ends; when another server or the pipeline scheduler
 * owns it (they do not end on their own), it stops at once and says which.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TradesealError } from '../core/errors.js';

export const OWNER_FILE = 'embedded.json';

export interface OwnerRecord {
  pid: number;
  /** Null while the owner is still starting. */
  port: number | null;
  /** What the owner is doing (`serve`, or a command id such as `pipeline:run`); older files have none. */
  purpose?: string;
  /** Tells apart two owners that had the same pid. */
  token: string;
  startedAt: string;
}

export interface Ownership {
  role: 'owner';
  /** Records the port clients should connect to. */
  publish(port: number): Promise<void>;
  /** Removes the owner file if it is still this process's. Idempotent. */
  release(): Promise<void>;
}

export interface Tenancy {
  role: 'client';
  pid: number;
  port: number;
}

export interface ClaimOptions {
  /** How long to wait for a starting or closing owner. Default 60 s: a first PGlite start can take a while. */
  timeoutMs?: number;
  /** What this process is doing, recorded for others to read (default `command`). */
  purpose?: string;
  /** Never become a client: wait for a command that owns the store to end (a server does this). */
  mustOwn?: boolean;
  /** Told once, when `mustOwn` has to wait for another process. */
  onWait?: (owner: OwnerRecord) => void;
}

/** The purpose of a server. */
export const SERVER_PURPOSE = 'serve';
/** Owners that do not end on their own (a server, the pipeline scheduler): a server never waits for them. */
const LONG_RUNNING = new Set([SERVER_PURPOSE, 'pipeline:schedule']);

/** Tokens of the owner files this process wrote and has not released. */
const ownedHere = new Set<string>();

/** Becomes the owner of the embedded store under `home`, or finds the live owner to connect to. */
export async function claimEmbeddedStore(home: string, options: ClaimOptions = {}): Promise<Ownership | Tenancy> {
  const file = path.join(home, OWNER_FILE);
  await fs.mkdir(home, { recursive: true });
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let last = 'no owner file';
  let told = false;
  for (;;) {
    const ownership = await tryClaim(file, options.purpose ?? 'command');
    if (ownership) return ownership;

    const raw = await fs.readFile(file, 'utf8').catch(() => null);
    if (raw !== null) {
      const record = parseRecord(raw);
      if (record === null || isStale(record)) {
        if (!(await removeIfUnchanged(file, raw))) await sleep(20);
        continue;
      }
      if (options.mustOwn && record.purpose !== undefined && LONG_RUNNING.has(record.purpose)) {
        throw new TradesealError(
          'service_unavailable',
          `the embedded store in ${home} is owned by \`tradeseal ${record.purpose.replace(/:/g, ' ')}\` (process ${record.pid}), which runs until it is stopped`,
          {
            hint: "stop it and start `tradeseal serve` first (other commands then use the server's store), or use one Postgres server for every process (DATABASE_URL)",
          },
        );
      }
      if (options.mustOwn) {
        // A command owns it for now: wait for it to end, however long, then take the store over.
        if (!told) options.onWait?.(record);
        told = true;
        await sleep(200);
        continue;
      }
      if (record.port === null) {
        last = `process ${record.pid} is starting the store`;
      } else if (await answers(record.port)) {
        return { role: 'client', pid: record.pid, port: record.port };
      } else {
        last = `process ${record.pid} does not answer on port ${record.port}`;
      }
    }
    if (Date.now() > deadline) {
      throw new TradesealError('service_unavailable', `the embedded store in ${home} is owned by another process: ${last}`, {
        hint: `if no tradeseal process is running, remove ${file}`,
      });
    }
    await sleep(100);
  }
}

async function tryClaim(file: string, purpose: string): Promise<Ownership | null> {
  const record: OwnerRecord = { pid: process.pid, port: null, purpose, token: randomBytes(12).toString('hex'), startedAt: new Date().toISOString() };
  const tmp = await writeTemp(file, record);
  // Registered before the file appears: a claimant in this same process that reads it a moment later must
  // not take a file naming this pid for a leftover of an earlier process.
  ownedHere.add(record.token);
  try {
    await fs.link(tmp, file);
  } catch (error) {
    ownedHere.delete(record.token);
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return null;
    throw error;
  } finally {
    await fs.unlink(tmp).catch(() => {});
  }
  // A process that exits without close() (an uncaught error, process.exit) still leaves no file behind.
  const onExit = (): void => releaseSync(file, record.token);
  process.once('exit', onExit);

  let released = false;
  return {
    role: 'owner',
    async publish(port) {
      record.port = port;
      await fs.rename(await writeTemp(file, record), file);
    },
    async release() {
      if (released) return;
      released = true;
      process.removeListener('exit', onExit);
      releaseSync(file, record.token);
    },
  };
}

function releaseSync(file: string, token: string): void {
  ownedHere.delete(token);
  try {
    if (parseRecord(readFileSync(file, 'utf8'))?.token === token) unlinkSync(file);
  } catch {
    // Already gone: nothing to release.
  }
}

async function writeTemp(file: string, record: OwnerRecord): Promise<string> {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await fs.writeFile(tmp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  return tmp;
}

function parseRecord(raw: string): OwnerRecord | null {
  try {
    const r = JSON.parse(raw) as Partial<OwnerRecord>;
    if (!Number.isInteger(r.pid) || typeof r.token !== 'string') return null;
    if (r.port !== null && !Number.isInteger(r.port)) return null;
    return r as OwnerRecord;
  } catch {
    return null;
  }
}

/** A corrupt file, a dead pid, or this pid without this process having written it. */
function isStale(record: OwnerRecord): boolean {
  if (record.pid === process.pid) return !ownedHere.has(record.token);
  return !isAlive(record.pid);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const TAKEOVER_STALE_MS = 10_000;

/**
 * Removes the stale owner file if it still holds `raw`, under the takeover lock. False when another process
 * holds the lock (the caller waits a moment and looks again).
 */
async function removeIfUnchanged(file: string, raw: string): Promise<boolean> {
  const lock = `${file}.takeover`;
  const tmp = `${lock}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await fs.writeFile(tmp, `${process.pid}\n`, { mode: 0o600 });
  try {
    await fs.link(tmp, lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const since = await fs.stat(lock).then(
      (st) => Date.now() - st.mtimeMs,
      () => 0,
    );
    if (since > TAKEOVER_STALE_MS) await fs.unlink(lock).catch(() => {});
    return false;
  } finally {
    await fs.unlink(tmp).catch(() => {});
  }
  try {
    // Under the lock the file cannot change: only a lock holder removes an owner file, a claim cannot
    // replace an existing one, and the stale record's owner is gone.
    if ((await fs.readFile(file, 'utf8').catch(() => null)) === raw) await fs.unlink(file).catch(() => {});
    return true;
  } finally {
    await fs.unlink(lock).catch(() => {});
  }
}

/** Whether something accepts TCP connections on the loopback port. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port, timeout: 1000 });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}
