/**
 * Builds of one checkout take turns (scripts/build-lock.js): two at once never interleave (a test file's build and
 * `npm start`'s, say, where one would read a dist/ the other is writing), and a lock left by a killed build (or
 * naming this process, after a container restart) does not stop the next one.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { withBuildLock } from '../../scripts/build-lock.js';

const root = mkdtempSync(path.join(tmpdir(), 'tradeseal-build-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const LOCK = pathToFileURL(path.resolve('scripts/build-lock.js')).href;

/** A process that holds the lock for 300 ms, writing `NAME start` and `NAME end` to the journal. */
function builder(name: string, journal: string): Promise<string> {
  const code = `
    import { appendFileSync } from 'node:fs';
    const { withBuildLock } = await import(${JSON.stringify(LOCK)});
    await withBuildLock(${JSON.stringify(root)}, async () => {
      appendFileSync(${JSON.stringify(journal)}, '${name} start\\n');
      await new Promise((r) => setTimeout(r, 300));
      appendFileSync(${JSON.stringify(journal)}, '${name} end\\n');
    });`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.once('exit', (status) => (status === 0 ? resolve(err) : reject(new Error(`builder ${name} exited ${status}: ${err}`))));
  });
}

describe('the build lock', () => {
  it('makes concurrent builds take turns, the waiting one saying whom it waits for', async () => {
    const journal = path.join(root, 'journal');
    writeFileSync(journal, '');
    const said = await Promise.all(['a', 'b', 'c'].map((n) => builder(n, journal)));
    const lines = readFileSync(journal, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(6);
    // Each start is followed by its own end: no build ran inside another.
    for (let i = 0; i < 6; i += 2) expect(lines[i + 1]).toBe(lines[i]!.replace('start', 'end'));
    expect(said.filter((s) => /waiting for another build of this checkout \(process \d+\)/.test(s)).length).toBeGreaterThanOrEqual(1);
  });

  it('breaks a lock whose build died, and removes its own when done', async () => {
    const lock = path.join(root, 'node_modules', '.cache', 'tradeseal-build.lock');
    mkdirSync(lock, { recursive: true });
    // A pid no process has (pids are below 2^22 on Linux).
    writeFileSync(path.join(lock, 'pid'), String(2 ** 22 + 7));
    let ran = false;
    await withBuildLock(root, async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    expect(() => readFileSync(path.join(lock, 'pid'))).toThrow(/ENOENT/);
  });

  it('breaks a lock naming this very process (a container restarted with the same pids), instead of waiting on itself', async () => {
    const lock = path.join(root, 'node_modules', '.cache', 'tradeseal-build.lock');
    mkdirSync(lock, { recursive: true });
    writeFileSync(path.join(lock, 'pid'), String(process.pid));
    let ran = false;
    await withBuildLock(root, async () => {
      ran = true;
    });
    expect(ran).toBe(true);
  });
});
