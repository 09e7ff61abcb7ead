/** The owner file of the embedded store: one owner among racing claimants, waiting for a live owner, stale takeover. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TradesealError } from '../../src/core/errors.js';
import { claimEmbeddedStore, OWNER_FILE, type Ownership, type Tenancy } from '../../src/store/embedded-owner.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function tempHome(): Promise<string> {
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'tradeseal-owner-'));
  cleanups.push(() => fs.rm(home, { recursive: true, force: true }));
  return home;
}

/** A process that stays alive until the test ends: a live pid that is not ours. */
function liveProcess(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)']);
  cleanups.push(() => void child.kill());
  return child;
}

/** A TCP listener on a loopback port, standing in for an owner's socket server. */
async function listener(): Promise<number> {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

const writeOwner = (home: string, record: object) => fs.writeFile(path.join(home, OWNER_FILE), JSON.stringify(record));

describe('claimEmbeddedStore', () => {
  it('makes exactly one of many simultaneous claimants the owner; the rest connect once it publishes its port', async () => {
    const home = await tempHome();
    const port = await listener();
    const claims = Array.from({ length: 8 }, () => claimEmbeddedStore(home, { timeoutMs: 10_000 }));

    // Owners resolve at once; clients wait for the port. Publish as soon as the owner is known.
    const owner = (await Promise.race(claims)) as Ownership;
    expect(owner.role).toBe('owner');
    await owner.publish(port);
    cleanups.push(() => owner.release());

    const all = await Promise.all(claims);
    expect(all.filter((c) => c.role === 'owner')).toHaveLength(1);
    const clients = all.filter((c): c is Tenancy => c.role === 'client');
    expect(clients).toHaveLength(7);
    for (const c of clients) expect(c).toEqual({ role: 'client', pid: process.pid, port });
  });

  it('makes exactly one of many simultaneous claimants the owner when the file left behind is stale', async () => {
    const home = await tempHome();
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => dead.once('exit', resolve));
    await writeOwner(home, { pid: dead.pid, port: 1, token: 'dead', startedAt: '2020-01-01T00:00:00Z' });

    const port = await listener();
    const claims = Array.from({ length: 8 }, () => claimEmbeddedStore(home, { timeoutMs: 10_000 }));
    const owner = (await Promise.race(claims)) as Ownership;
    await owner.publish(port);
    cleanups.push(() => owner.release());

    const all = await Promise.all(claims);
    expect(all.filter((c) => c.role === 'owner')).toHaveLength(1);
    expect(all.filter((c) => c.role === 'client' && c.port === port)).toHaveLength(7);
    // No moved-aside or temporary file is left behind.
    expect(await fs.readdir(home)).toEqual([OWNER_FILE]);
  });

  it('waits for a live owner that is still starting, then gives up with service_unavailable', async () => {
    const home = await tempHome();
    const child = liveProcess();
    await writeOwner(home, { pid: child.pid, port: null, token: 'starting', startedAt: new Date().toISOString() });

    const started = Date.now();
    const error = await claimEmbeddedStore(home, { timeoutMs: 400 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(error).toBeInstanceOf(TradesealError);
    expect((error as TradesealError).code).toBe('service_unavailable');
    expect((error as TradesealError).message).toMatch(new RegExp(`process ${child.pid} is starting the store`));
    expect((error as TradesealError).hint).toContain(path.join(home, OWNER_FILE));
  });

  it('does not take over from a live owner that does not answer, but reports it', async () => {
    const home = await tempHome();
    const child = liveProcess();
    const closedPort = await listener();
    await cleanups.pop()!(); // close the listener: the port now refuses connections
    await writeOwner(home, { pid: child.pid, port: closedPort, token: 'mute', startedAt: new Date().toISOString() });

    const error = await claimEmbeddedStore(home, { timeoutMs: 300 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect((error as TradesealError).code).toBe('service_unavailable');
    expect((error as TradesealError).message).toMatch(new RegExp(`process ${child.pid} does not answer on port ${closedPort}`));
    expect(JSON.parse(await fs.readFile(path.join(home, OWNER_FILE), 'utf8'))).toMatchObject({ pid: child.pid, token: 'mute' });
  });

  it('becomes the owner as soon as a waited-for owner releases the file', async () => {
    const home = await tempHome();
    const first = (await claimEmbeddedStore(home)) as Ownership;
    const waiting = claimEmbeddedStore(home, { timeoutMs: 10_000 });
    setTimeout(() => void first.release(), 200);
    const second = await waiting;
    expect(second.role).toBe('owner');
    await (second as Ownership).release();
    await expect(fs.readdir(home)).resolves.toEqual([]);
  });

  it('release() removes only its own file', async () => {
    const home = await tempHome();
    const owner = (await claimEmbeddedStore(home)) as Ownership;
    await writeOwner(home, { pid: process.pid, port: 5, token: 'someone else', startedAt: new Date().toISOString() });
    await owner.release();
    expect(JSON.parse(await fs.readFile(path.join(home, OWNER_FILE), 'utf8'))).toMatchObject({ token: 'someone else' });
  });

  it('a server (mustOwn) never becomes a client: it waits while a command owns the store, says so once, then owns it', async () => {
    const home = await tempHome();
    const child = liveProcess();
    const port = await listener();
    await writeOwner(home, { pid: child.pid, port, purpose: 'pipeline:run', token: 'run', startedAt: new Date().toISOString() });
    const told: Array<{ pid: number; purpose?: string }> = [];
    const claiming = claimEmbeddedStore(home, { mustOwn: true, purpose: 'serve', onWait: (o) => told.push(o) });
    await new Promise((resolve) => setTimeout(resolve, 600));
    // A plain command would have connected to the live owner by now; the server is still waiting.
    expect(told).toEqual([expect.objectContaining({ pid: child.pid, purpose: 'pipeline:run' })]);
    child.kill();
    const claim = await claiming;
    expect(claim.role).toBe('owner');
    expect(JSON.parse(await fs.readFile(path.join(home, OWNER_FILE), 'utf8'))).toMatchObject({ pid: process.pid, purpose: 'serve' });
    await (claim as Ownership).release();
  });

  it.each(['serve', 'pipeline:schedule'])('a server stops at once when the store is owned by a long-running %s', async (purpose) => {
    const home = await tempHome();
    const child = liveProcess();
    await writeOwner(home, { pid: child.pid, port: await listener(), purpose, token: 'long', startedAt: new Date().toISOString() });
    const error = await claimEmbeddedStore(home, { mustOwn: true, purpose: 'serve' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: 'service_unavailable',
      message: expect.stringContaining(`owned by \`tradeseal ${purpose.replace(':', ' ')}\` (process ${child.pid})`),
    });
    // A command is still its client, as before.
    const tenancy = (await claimEmbeddedStore(home)) as Tenancy;
    expect(tenancy).toMatchObject({ role: 'client', pid: child.pid });
  });
});
