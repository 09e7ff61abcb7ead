/**
 * The embedded store (no DATABASE_URL): a file-backed PGlite under TRADESEAL_HOME, owned by one process and
 * reached by the others through the owner's socket. Runs on PGlite whatever the test database mode.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { openStore, pingStore, type Store } from '../../src/store/db.js';
import { OWNER_FILE } from '../../src/store/embedded-owner.js';

const run = promisify(execFile);

let base: string;
/** A home whose PGlite directory is initialised already: initdb takes seconds, copying it does not. */
let initialised: string;
const open: Store[] = [];

beforeAll(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'tradeseal-embedded-'));
  initialised = path.join(base, 'initialised');
  const store = await openStore(configWith({ home: initialised, databaseUrl: null }));
  await store.sql`create table notes (body text primary key)`;
  await store.close();
});

afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

let homes = 0;
async function freshHome(): Promise<string> {
  const home = path.join(base, `home-${++homes}`);
  await fs.cp(initialised, home, { recursive: true });
  return home;
}

async function openHome(home: string): Promise<Store> {
  const store = await openStore(configWith({ home, databaseUrl: null }), { max: 2 });
  open.push(store);
  return store;
}

const ownerFile = async (home: string): Promise<Record<string, unknown> | null> =>
  JSON.parse(await fs.readFile(path.join(home, OWNER_FILE), 'utf8').catch(() => 'null')) as Record<string, unknown> | null;

const portOf = (url: string): number => Number(new URL(url).port);

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('openStore without DATABASE_URL', () => {
  it('creates the store under TRADESEAL_HOME on first use', async () => {
    const home = path.join(base, 'brand-new');
    const store = await openHome(home);
    expect(store.kind).toBe('embedded');
    expect(await store.sql`select 1 as one`).toEqual([{ one: 1 }]);
    expect((await fs.stat(path.join(home, 'pgdata', 'PG_VERSION'))).isFile()).toBe(true);
  });

  it('keeps data across close and reopen, and owns the home only while open', async () => {
    const home = await freshHome();
    const first = await openHome(home);
    expect(first.kind).toBe('embedded');
    expect(await ownerFile(home)).toMatchObject({ pid: process.pid, port: portOf(first.url) });
    await first.sql`insert into notes (body) values ('kept')`;
    await first.close();
    expect(await ownerFile(home)).toBeNull();

    const again = await openHome(home);
    expect(await again.sql`select body from notes`).toEqual([{ body: 'kept' }]);
  });

  it('connects a second opener in this process to the owner, which keeps serving after it closes', async () => {
    const home = await freshHome();
    const owner = await openHome(home);
    const second = await openHome(home);
    expect(second.kind).toBe('embedded');
    expect(second.url).toBe(owner.url);

    await owner.sql`insert into notes (body) values ('by owner')`;
    expect(await second.sql`select body from notes`).toEqual([{ body: 'by owner' }]);
    await second.sql`insert into notes (body) values ('by second')`;
    await second.close();

    expect(await owner.sql`select body from notes order by body`).toEqual([{ body: 'by owner' }, { body: 'by second' }]);
    expect(await ownerFile(home)).toMatchObject({ pid: process.pid, port: portOf(owner.url) });
  });

  it('connects another process to the owner instead of opening the directory', async () => {
    const home = await freshHome();
    const owner = await openHome(home);
    await owner.sql`insert into notes (body) values ('by owner')`;

    const script = path.join(import.meta.dirname, 'fixtures', 'read-embedded.ts');
    const { stdout } = await run(process.execPath, ['--import', 'tsx', script, home], { timeout: 25_000 });
    const child = JSON.parse(stdout.trim().split('\n').pop()!) as { kind: string; url: string; pid: number; notes: string[] };

    expect(child.kind).toBe('embedded');
    expect(child.pid).not.toBe(process.pid);
    expect(child.url).toBe(owner.url);
    expect(child.notes).toEqual(['by owner']);
    expect(await owner.sql`select body from notes order by body`).toEqual([{ body: 'by owner' }, { body: `from pid ${child.pid}` }]);
    // The client process did not take or remove the owner file.
    expect(await ownerFile(home)).toMatchObject({ pid: process.pid, port: portOf(owner.url) });
  });

  it('ignores and replaces a stale owner file: dead pid, this pid from an earlier life, or unreadable', async () => {
    const home = await freshHome();
    const stale = [
      JSON.stringify({ pid: await deadPid(), port: 1, token: 'dead', startedAt: '2020-01-01T00:00:00Z' }),
      // After a container restart the server can be pid 1 again: a file naming our pid we did not write is stale.
      JSON.stringify({ pid: process.pid, port: 1, token: 'earlier life', startedAt: '2020-01-01T00:00:00Z' }),
      '{"pid": 12',
    ];
    for (const content of stale) {
      await fs.writeFile(path.join(home, OWNER_FILE), content);
      const store = await openHome(home);
      expect(await ownerFile(home)).toMatchObject({ pid: process.pid, port: portOf(store.url) });
      expect(await store.sql`select count(*) as n from notes`).toEqual([{ n: 0 }]);
      await store.close();
      expect(await ownerFile(home)).toBeNull();
    }
    // Nothing else is left behind in the home.
    expect((await fs.readdir(home)).sort()).toEqual(['pgdata']);
  });
});

describe('pingStore', () => {
  it('is true for an open embedded store and false once it is closed', async () => {
    const store = await openHome(await freshHome());
    expect(await pingStore(store.sql)).toBe(true);
    await store.close();
    expect(await pingStore(store.sql)).toBe(false);
  });
});
