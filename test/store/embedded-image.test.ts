/**
 * A new embedded store is a copy of the build's image of an empty cluster (src/store/embedded-image.ts), not an
 * initdb of its own: the copy is the image's cluster (its system identifier), works as any store (the migrations run
 * on it, data survive a reopen), and leaves the image as it was; without an image the store is made by initdb.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyStoreImage, makeStoreImage } from '../../src/store/embedded-image.js';
import { openEmbeddedStore, type EmbeddedHandle } from '../../src/store/embedded-store.js';
import { migrate } from '../../src/store/migrate.js';

let base: string;
let image: string;

beforeAll(async () => {
  base = await fs.mkdtemp(path.join(os.tmpdir(), 'tradeseal-image-'));
  image = path.join(base, 'image');
  await makeStoreImage(image);
}, 60_000);

afterAll(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

const systemId = async (store: EmbeddedHandle): Promise<string> =>
  (await store.sql<Array<{ id: string }>>`select system_identifier::text as id from pg_control_system()`)[0]!.id;

/** Every file of a directory with its size, to tell whether it changed. */
async function listing(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return Promise.all(
    entries
      .filter((e) => e.isFile())
      .map(async (e) => `${path.relative(dir, path.join(e.parentPath, e.name))} ${(await fs.stat(path.join(e.parentPath, e.name))).size}`),
  ).then((l) => l.sort());
}

describe('a new embedded store', () => {
  it("is a copy of the image's cluster, migrated and kept like any store, and the image is left as it was", async () => {
    const before = await listing(image);
    const home = path.join(base, 'from-image');
    const store = await openEmbeddedStore(home, { image });
    expect(store.created).toBe(true);
    const id = await systemId(store);
    expect((await migrate(store.sql)).applied.length).toBeGreaterThan(30);
    await store.sql`create table notes (body text)`;
    await store.sql`insert into notes values ('kept')`;
    await store.close();

    const again = await openEmbeddedStore(home, { image });
    expect(again.created).toBe(false);
    expect([await systemId(again), (await again.sql`select body from notes`).map((r) => r.body)]).toEqual([id, ['kept']]);
    await again.close();

    const second = await openEmbeddedStore(path.join(base, 'also-from-image'), { image });
    expect(await systemId(second)).toBe(id);
    await second.close();
    expect(await listing(image)).toEqual(before);
  }, 60_000);

  it('is made by initdb without an image, or when the image is not a cluster', async () => {
    const imageless = await openEmbeddedStore(path.join(base, 'initdb'), { image: null });
    const copied = await openEmbeddedStore(path.join(base, 'copied'), { image });
    expect([imageless.created, (await systemId(imageless)) === (await systemId(copied))]).toEqual([true, false]);
    await Promise.all([imageless.close(), copied.close()]);
    // A directory without PG_VERSION is no image: nothing is copied, and the data directory is left for initdb.
    const dataDir = path.join(base, 'not-copied', 'pgdata');
    expect(copyStoreImage(dataDir, base)).toBe(false);
    expect(copyStoreImage(dataDir, null)).toBe(false);
    await expect(fs.stat(dataDir)).rejects.toThrow(/ENOENT/);
  }, 60_000);
});
