/**
 * A new embedded store is a copy of an image of an empty cluster (src/store/embedded-image.ts; the build makes it:
 * test/scripts/build.test.ts), not an initdb of its own: the copy is the image's cluster (its system identifier),
 * works as any store (the migrations run on it, data survive a reopen), and leaves the image as it was; without an
 * image, with a directory that is none, or with a copy PGlite cannot open, the store is made by initdb.
 */
import { cpSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyStoreImage } from '../../src/store/embedded-image.js';
import { openEmbeddedStore, type EmbeddedHandle } from '../../src/store/embedded-store.js';
import { migrate } from '../../src/store/migrate.js';

let base: string;
/** An empty cluster, closed: the data directory of a store made by initdb. */
let image: string;
let imageId: string;

const systemId = async (store: EmbeddedHandle): Promise<string> =>
  (await store.sql<Array<{ id: string }>>`select system_identifier::text as id from pg_control_system()`)[0]!.id;

beforeAll(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'tradeseal-image-'));
  const made = await openEmbeddedStore(path.join(base, 'initdb'), { image: null });
  expect(made.created).toBe(true);
  imageId = await systemId(made);
  await made.close();
  image = path.join(base, 'image');
  cpSync(path.join(base, 'initdb', 'pgdata'), image, { recursive: true });
}, 60_000);

afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

/** Every file of a directory with its size, to tell whether it changed. */
async function listing(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
  return (await Promise.all(files.map(async (f) => `${path.relative(dir, f)} ${(await fs.stat(f)).size}`))).sort();
}

describe('a new embedded store', () => {
  it("is a copy of the image's cluster, migrated and kept like any store, and the image is left as it was", async () => {
    const before = await listing(image);
    const home = path.join(base, 'from-image');
    const store = await openEmbeddedStore(home, { image });
    expect([store.created, await systemId(store)]).toEqual([true, imageId]);
    expect((await migrate(store.sql)).applied.length).toBeGreaterThan(30);
    await store.sql`create table notes (body text)`;
    await store.sql`insert into notes values ('kept')`;
    await store.close();

    const again = await openEmbeddedStore(home, { image });
    expect([again.created, await systemId(again), (await again.sql`select body from notes`).map((r) => r.body)]).toEqual([false, imageId, ['kept']]);
    await again.close();
    expect(await listing(image)).toEqual(before);
  }, 60_000);

  it('is made by initdb when PGlite cannot open the copy (an image cut short), and a copy left by a killed process goes', async () => {
    const broken = path.join(base, 'broken-image');
    cpSync(image, broken, { recursive: true });
    await fs.rm(path.join(broken, 'global', 'pg_control'));
    const home = path.join(base, 'from-broken');
    await fs.mkdir(path.join(home, 'pgdata.image-left'), { recursive: true });
    const store = await openEmbeddedStore(home, { image: broken });
    expect(store.created).toBe(true);
    expect(await systemId(store)).not.toBe(imageId);
    expect(await store.sql`select 1 as one`).toEqual([{ one: 1 }]);
    await store.close();
    expect((await fs.readdir(home)).filter((f) => f.startsWith('pgdata'))).toEqual(['pgdata']);
  }, 60_000);

  it('is left to initdb when the image is not a cluster, or there is none', () => {
    // A directory without PG_VERSION is no image: nothing is copied, and the data directory is left for initdb.
    const dataDir = path.join(base, 'not-copied', 'pgdata');
    expect(copyStoreImage(dataDir, base)).toBe(false);
    expect(copyStoreImage(dataDir, null)).toBe(false);
    return expect(fs.stat(dataDir)).rejects.toThrow(/ENOENT/);
  });
});
