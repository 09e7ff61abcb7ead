/**
 * Group commit (src/store/group-commit.ts): a lone write goes at once and alone; writes that arrive while every
 * slot is busy go together; one key per batch unless `mayShare` admits more, in key order, each key's writes in
 * submission order; a failed batch retries each write alone so one bad write fails only itself.
 */
import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/store/group-commit.js';

interface Item {
  key: string;
  value: number;
  bad?: boolean;
}

/** A store whose statements finish when the test says so; records every batch it was handed. */
function fakeStore() {
  const batches: Item[][] = [];
  const pending: Array<() => void> = [];
  const write = (items: readonly Item[]): Promise<number[]> => {
    batches.push([...items]);
    return new Promise((resolve, reject) => {
      pending.push(() => (items.some((i) => i.bad) ? reject(new Error('constraint violated')) : resolve(items.map((i) => i.value * 10))));
    });
  };
  const finishAll = async (): Promise<void> => {
    while (pending.length > 0) {
      for (const done of pending.splice(0)) done();
      await new Promise((r) => setImmediate(r));
    }
  };
  return { batches, write, finishAll, inFlight: () => pending.length };
}

const queue = (store: ReturnType<typeof fakeStore>, maxInFlight = 1, maxBatch = 64) =>
  new GroupCommit<Item, number>({ write: store.write, keyOf: (i) => i.key, maxBatch, maxInFlight });

describe('group commit', () => {
  it('sends a lone write at once, alone, without waiting for others', async () => {
    const store = fakeStore();
    const q = queue(store);
    const out = q.submit({ key: 'a', value: 1 });
    expect(store.batches).toEqual([[{ key: 'a', value: 1 }]]);
    await store.finishAll();
    await expect(out).resolves.toBe(10);
  });

  it('writes that arrive while every slot is busy go together in the next batch, each with its own outcome', async () => {
    const store = fakeStore();
    const q = queue(store);
    const first = q.submit({ key: 'a', value: 1 });
    const rest = [q.submit({ key: 'c', value: 3 }), q.submit({ key: 'b', value: 2 }), q.submit({ key: 'd', value: 4 })];
    expect(store.batches).toHaveLength(1);
    await store.finishAll();
    expect(await first).toBe(10);
    expect(await Promise.all(rest)).toEqual([30, 20, 40]);
    // The second batch holds the three, sorted by key (one lock order for concurrent batches).
    expect(store.batches[1]?.map((i) => i.key)).toEqual(['b', 'c', 'd']);
    expect(q.stats).toMatchObject({ batches: 2, items: 4 });
  });

  it('never puts two writes of one key in a batch: the second waits for the next', async () => {
    const store = fakeStore();
    const q = queue(store);
    const outs = [q.submit({ key: 'x', value: 0 }), q.submit({ key: 'a', value: 1 }), q.submit({ key: 'a', value: 2 }), q.submit({ key: 'b', value: 3 })];
    await store.finishAll();
    expect(await Promise.all(outs)).toEqual([0, 10, 20, 30]);
    expect(store.batches.map((b) => b.map((i) => i.value))).toEqual([[0], [1, 3], [2]]);
  });

  it("writes a key's writes in submission order: held while its batch is under way, together while mayShare admits them", async () => {
    const store = fakeStore();
    // A key's writes may share a batch while their values rise.
    const q = new GroupCommit<Item, number>({
      write: store.write,
      keyOf: (i) => i.key,
      mayShare: (i, earlier) => earlier.every((e) => e.value < i.value),
      maxBatch: 64,
      maxInFlight: 2,
    });
    const values = [
      ['a', 1],
      ['a', 2],
      ['b', 5],
      ['a', 3],
      ['a', 1],
      ['a', 4],
    ] as const;
    const outs = values.map(([key, value]) => q.submit({ key, value }));
    // `a` 1 went at once; `a` 2 waits for it although a slot is free, and `b` takes that slot.
    expect(store.batches.map((b) => b.map((i) => `${i.key}${i.value}`))).toEqual([['a1'], ['b5']]);
    await store.finishAll();
    expect(await Promise.all(outs)).toEqual(values.map(([, v]) => v * 10));
    // `a` 1 again does not rise: it and the `a` 4 behind it wait for the next batch, in order.
    expect(store.batches.map((b) => b.map((i) => `${i.key}${i.value}`))).toEqual([['a1'], ['b5'], ['a2', 'a3'], ['a1', 'a4']]);
  });

  it('keeps at most maxInFlight statements under way and at most maxBatch writes in one', async () => {
    const store = fakeStore();
    const q = queue(store, 2, 3);
    const outs = Array.from({ length: 10 }, (_, i) => q.submit({ key: `k${String(i).padStart(2, '0')}`, value: i }));
    expect(store.inFlight()).toBe(2);
    await store.finishAll();
    expect(await Promise.all(outs)).toEqual(Array.from({ length: 10 }, (_, i) => i * 10));
    expect(store.batches.map((b) => b.length)).toEqual([1, 1, 3, 3, 2]);
    expect(Math.max(...store.batches.map((b) => b.length))).toBeLessThanOrEqual(3);
  });

  it('a batch that fails as a whole is retried write by write: the bad write fails alone, the others succeed', async () => {
    const store = fakeStore();
    const q = queue(store);
    const first = q.submit({ key: 'a', value: 1 });
    const good1 = q.submit({ key: 'b', value: 2 });
    const bad = expect(q.submit({ key: 'c', value: 3, bad: true })).rejects.toThrow('constraint violated');
    const good2 = q.submit({ key: 'd', value: 4 });
    await store.finishAll();
    expect(await first).toBe(10);
    expect(await good1).toBe(20);
    expect(await good2).toBe(40);
    await bad;
    expect(store.batches.map((b) => b.map((i) => i.key))).toEqual([['a'], ['b', 'c', 'd'], ['b'], ['c'], ['d']]);
    expect(q.stats.retriedAlone).toBe(3);
  });

  it("a lone write that fails is rejected with the store's error, once", async () => {
    const store = fakeStore();
    const q = queue(store);
    const out = expect(q.submit({ key: 'a', value: 1, bad: true })).rejects.toThrow('constraint violated');
    await store.finishAll();
    await out;
    expect(store.batches).toHaveLength(1);
  });

  it('refuses a queue without a slot or a batch size', () => {
    const store = fakeStore();
    expect(() => queue(store, 0)).toThrow(RangeError);
    expect(() => queue(store, 1, 0)).toThrow(RangeError);
  });
});
