/**
 * Anchoring the audit chain on a real store (src/engine/audit/anchor.ts): a pass signs a checkpoint of the
 * head only when the chain grew, counts its position from the previous checkpoint (checked against the
 * whole chain's count, across many passes, while appends run), signs it with the log's key, never goes
 * back in time, and two passes at once sign one checkpoint; the table refuses UPDATE and DELETE.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { anchorOnce, newestCheckpoint } from '../../src/engine/audit/anchor.js';
import { appendAudit } from '../../src/engine/audit/append.js';
import { badCheckpointSignature } from '../../src/engine/audit/checkpoint.js';
import { loadLogKey, type LogKey } from '../../src/engine/store/log-key.js';
import { testStore, type TestStore } from '../helpers/db.js';

let store: TestStore;
let key: LogKey;
beforeAll(async () => {
  store = await testStore();
  key = await loadLogKey(store.sql, configWith({ databaseUrl: store.url }));
});
afterAll(async () => store?.close());

const append = (n: number): Promise<unknown> =>
  Promise.all(Array.from({ length: n }, (_, i) => appendAudit(store.sql, { actor: 'test', action: 'reconcile', target_id: null, details: { i } })));

describe('anchoring the audit chain', () => {
  it('signs a checkpoint of the head only when the chain grew, at its position, under the log key, never back in time', async () => {
    expect(await anchorOnce(store.sql, key, 1000)).toEqual({ status: 'idle', checkpoint: null });
    await append(3);
    const first = await anchorOnce(store.sql, key, 5000);
    const [head] = await store.sql<Array<{ id: string; entry_hash: string }>>`select id, entry_hash from audit_log order by seq desc limit 1`;
    expect(first).toMatchObject({
      status: 'anchored',
      checkpoint: { size: 3, entry_id: head!.id, entry_hash: head!.entry_hash, timestamp: 5000, key_id: key.keyId },
    });
    expect(badCheckpointSignature(first.checkpoint!, key.publicKey)).toBeNull();
    expect(await newestCheckpoint(store.sql)).toEqual(first.checkpoint);
    expect((await anchorOnce(store.sql, key, 6000)).status).toBe('idle');
    await append(1);
    // A clock behind the previous checkpoint's: the timestamp stays where it was.
    expect((await anchorOnce(store.sql, key, 10)).checkpoint).toMatchObject({ size: 4, timestamp: 5000 });
  });

  it('counts each position from the one before while appends run, as the whole chain counts it', async () => {
    let appending = true;
    const writer = (async () => {
      for (let i = 0; i < 20; i++) await append(5);
      appending = false;
    })();
    while (appending) await anchorOnce(store.sql, key, Date.now());
    await writer;
    await anchorOnce(store.sql, key, Date.now());
    const rows = await store.sql<Array<{ size: number; seq: number }>>`select size, seq from audit_checkpoints order by size`;
    for (const row of rows) {
      const [count] = await store.sql<Array<{ n: number }>>`select count(*)::int as n from audit_log where seq <= ${row.seq}`;
      expect(count!.n).toBe(row.size);
    }
    expect(rows.at(-1)?.size).toBe(104);
  });

  it('signs one checkpoint when two passes run at once, and the table is append-only', async () => {
    await append(2);
    const passes = await Promise.all([anchorOnce(store.sql, key, Date.now()), anchorOnce(store.sql, key, Date.now())]);
    expect(passes.filter((p) => p.status === 'anchored')).toHaveLength(1);
    expect((await newestCheckpoint(store.sql))?.size).toBe(106);
    await expect(store.sql`delete from audit_checkpoints`).rejects.toThrow(/audit_checkpoints is append-only: DELETE refused/);
    await expect(store.sql`update audit_checkpoints set size = size + 1000`).rejects.toThrow(/append-only: UPDATE refused/);
  });
});
