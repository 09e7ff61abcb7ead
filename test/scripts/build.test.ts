/**
 * `npm run build` in a fresh checkout (the tree's files, the installed node_modules, no dist/): it names each step
 * and its time as it goes, and what it builds runs, whatever NODE_ENV the caller has (a test run's `test` once
 * made oclif's manifest name the TypeScript sources, which the compiled CLI cannot import), and a new store of the
 * built CLI is a copy of the image the build made.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshCheckout } from '../../scripts/docs/check/fresh-checkout.js';
import { pgliteVersion } from '../../src/store/embedded-image.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'tradeseal-build-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('npm run build in a fresh checkout', () => {
  it('says each step with its time, and builds a CLI whose manifest names the compiled commands', () => {
    const dir = freshCheckout(path.resolve('.'), path.join(scratch, 'checkout'));
    expect(existsSync(path.join(dir, 'dist'))).toBe(false);
    const built = spawnSync(process.execPath, ['scripts/build.js'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NODE_ENV: 'test' } });
    expect(built.status, built.stderr).toBe(0);
    expect(built.stderr).toMatch(/compiling the TypeScript sources to dist\/ \(esbuild\): \d+\.\d s\n/);
    expect(built.stderr).toMatch(/writing the command manifest \(oclif manifest\): \d+\.\d s\n/);
    expect(built.stderr).toMatch(/making the embedded store's image \(PGlite's initdb, once: each new store is a copy\): \d+\.\d s\n/);
    expect(built.stderr).toMatch(/built in \d+\.\d s\n/);
    const image = path.join(dir, 'dist', 'store-image', `pglite-${pgliteVersion()}`);
    expect(readdirSync(path.dirname(image))).toEqual([path.basename(image)]);
    expect(existsSync(path.join(image, 'PG_VERSION'))).toBe(true);

    const manifest = JSON.parse(readFileSync(path.join(dir, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, { relativePath: string[] }> };
    const commands = Object.entries(manifest.commands);
    expect(commands.length).toBeGreaterThan(50);
    for (const [id, c] of commands) expect([id, c.relativePath[0], c.relativePath.at(-1)?.endsWith('.js')]).toEqual([id, 'dist', true]);

    const home = path.join(scratch, 'home');
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? scratch, TRADESEAL_HOME: home, NODE_ENV: 'test' };
    const status = spawnSync(process.execPath, ['bin/run.js', 'pipeline', 'status'], { cwd: dir, encoding: 'utf8', env });
    expect(status.stdout + status.stderr).toContain('no pipeline run yet');
    expect(status.status).toBe(0);
    // The new store is the image's cluster, a copy, not an initdb of its own: pg_control opens with the cluster's
    // system identifier, which initdb draws anew for each cluster.
    const systemId = (dataDir: string): string =>
      readFileSync(path.join(dataDir, 'global', 'pg_control'))
        .subarray(0, 8)
        .toString('hex');
    expect(systemId(path.join(home, 'pgdata'))).toBe(systemId(image));
  }, 120_000);
});
