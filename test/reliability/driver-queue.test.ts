/**
 * The store driver's queue of connections stays as short as the pool (patches/postgres+3.4.9.patch, repair 4).
 * postgres.js 3.4.9's queue leaves a hole at each `shift` and searches from its first slot at each `remove`,
 * so while the pool has an idle connection its array grows by one slot a query and every query scans all of
 * it: a server gets slower for as long as it runs. The tests count what is scanned, not how long it takes:
 * `Array.prototype.indexOf` is watched while the driver moves its connections between queues.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testStore, type TestStore } from '../helpers/db.js';

const require = createRequire(import.meta.url);
/** The driver's own queue, from the file the driver imports (the ES module build). */
const queueModule = import(require.resolve('postgres').replace(/cjs[/\\]src[/\\]index\.js$/, 'src/queue.js')) as Promise<{
  default: <T>(initial?: T[]) => Queue<T>;
}>;

interface Queue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T | undefined;
  remove(x: T): T | null;
}

/** Runs `body` while recording the length of every array `indexOf` is called on with an argument `matches` accepts. */
async function scanned<T>(matches: (x: unknown) => boolean, body: () => Promise<T> | T): Promise<{ result: T; longest: number; calls: number }> {
  const original = Array.prototype.indexOf;
  let longest = 0;
  let calls = 0;
  Array.prototype.indexOf = function indexOf(this: unknown[], x: unknown, from?: number) {
    if (matches(x)) {
      calls++;
      longest = Math.max(longest, this.length);
    }
    return original.call(this, x, from);
  };
  try {
    return { result: await body(), longest, calls };
  } finally {
    Array.prototype.indexOf = original;
  }
}

describe("the driver's queue of connections", () => {
  it('keeps its order and its answers through many cycles while never empty', async () => {
    const Queue = (await queueModule).default;
    const q = Queue<{ id: number }>();
    const items = Array.from({ length: 5 }, (_, id) => ({ id }));
    for (const x of items) q.push(x);
    const order: number[] = [];
    const { longest, calls } = await scanned(
      (x) => items.includes(x as { id: number }),
      () => {
        for (let i = 0; i < 20_000; i++) {
          const x = q.shift() as { id: number };
          order.push(x.id);
          expect(q.remove(x)).toBeNull(); // shifted: no longer queued
          q.push(x);
        }
      },
    );
    // First in, first out, the five taking turns, and the queue never longer than what it holds.
    expect(order.slice(0, 12)).toEqual([0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1]);
    expect(order.every((id, i) => id === i % 5)).toBe(true);
    expect(q.length).toBe(5);
    expect(calls).toBe(20_000);
    // The array searched stays within a constant of what the queue holds (128 slots at most), not 20,000.
    expect(longest).toBeLessThanOrEqual(2 * 64 + 5);
    // A queued item is removed wherever it is; the rest keep their order.
    const middle = items[2] as { id: number };
    expect(q.remove(middle)).toBe(middle);
    expect(q.length).toBe(4);
    expect([q.shift(), q.shift(), q.shift(), q.shift(), q.shift()].map((x) => x?.id)).toEqual([0, 1, 3, 4, undefined]);
  });
});

describe('the pool under steady load with idle connections', () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await testStore({ max: 4 });
  });
  afterAll(async () => store?.close());

  it('scans no more of its queues for the 3,000th query than for the first', async () => {
    const sql = store.sql;
    // Every connection of the pool opened, so that three stay idle while queries go one at a time.
    await Promise.all(Array.from({ length: 4 }, () => sql`select pg_sleep(0.02)`));
    const isConnection = (x: unknown): boolean => typeof x === 'object' && x !== null && 'queue' in x && 'execute' in x;
    const { longest, calls } = await scanned(isConnection, async () => {
      for (let i = 0; i < 3_000; i++) await sql`select ${i}::int as n`;
    });
    expect(calls).toBeGreaterThanOrEqual(3_000); // each query moves its connection at least once
    expect(longest).toBeLessThanOrEqual(2 * 64 + 4);
  });
});
